//! The one generic writer behind every `clGet*Info`: size query, too-small buffer
//! (`CL_INVALID_VALUE`), and the conversions of values to their C byte layout.

use crate::cl::*;
use std::ffi::c_void;

/// A value as the bytes a `clGet*Info` call returns.
pub trait InfoValue {
    fn info_bytes(&self) -> Vec<u8>;
}

macro_rules! scalar_info {
    ($($t:ty),*) => {$(
        impl InfoValue for $t {
            fn info_bytes(&self) -> Vec<u8> {
                self.to_ne_bytes().to_vec()
            }
        }
        impl InfoValue for [$t] {
            fn info_bytes(&self) -> Vec<u8> {
                self.iter().flat_map(|v| v.to_ne_bytes()).collect()
            }
        }
        impl InfoValue for Vec<$t> {
            fn info_bytes(&self) -> Vec<u8> {
                self.as_slice().info_bytes()
            }
        }
    )*};
}
scalar_info!(u8, u16, u32, i32, u64, i64, usize, isize);

impl InfoValue for str {
    fn info_bytes(&self) -> Vec<u8> {
        let mut v = self.as_bytes().to_vec();
        v.push(0);
        v
    }
}
impl InfoValue for String {
    fn info_bytes(&self) -> Vec<u8> {
        self.as_str().info_bytes()
    }
}
impl InfoValue for &str {
    fn info_bytes(&self) -> Vec<u8> {
        (*self).info_bytes()
    }
}

/// A pointer-sized handle or address.
pub struct Ptr<T>(pub *mut T);
impl<T> InfoValue for Ptr<T> {
    fn info_bytes(&self) -> Vec<u8> {
        (self.0 as usize).to_ne_bytes().to_vec()
    }
}
/// A list of handles.
pub struct Ptrs<T>(pub Vec<*mut T>);
impl<T> InfoValue for Ptrs<T> {
    fn info_bytes(&self) -> Vec<u8> {
        self.0.iter().flat_map(|p| (*p as usize).to_ne_bytes()).collect()
    }
}

/// Writes `v` for a `clGet*Info` call.
pub fn write<V: InfoValue + ?Sized>(v: &V, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
    write_bytes(&v.info_bytes(), size, value, size_ret)
}

/// Writes raw bytes for a `clGet*Info` call: `CL_INVALID_VALUE` when `value` is non-NULL and
/// `size` is smaller than the value.
pub fn write_bytes(bytes: &[u8], size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
    if !value.is_null() {
        if size < bytes.len() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: the OpenCL contract: `value` points to `size` writable bytes, and we copy at
        // most that many.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), value as *mut u8, bytes.len()) };
    }
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    unsafe { super::ptr::write_opt(size_ret, bytes.len()) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn sizes_and_small_buffers() {
        let mut ret = 0usize;
        write(&7u32, 0, std::ptr::null_mut(), &mut ret).unwrap();
        assert_eq!(ret, 4);
        let mut buf = [0u8; 3];
        assert_eq!(write("ab", 2, buf.as_mut_ptr() as *mut c_void, &mut ret), Err(CL_INVALID_VALUE));
        write("ab", 3, buf.as_mut_ptr() as *mut c_void, &mut ret).unwrap();
        assert_eq!((&buf, ret), (b"ab\0", 3));
    }
}
