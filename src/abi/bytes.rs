//! The byte encoding shared by our ELF sections (`.ventus.kernel_info`, `.ventus.lines`,
//! `.ventus.globals`): little-endian integers and strings as a `u32` length followed by UTF-8
//! bytes. [`Reader`] decodes without trusting any length it reads; each section maps
//! [`ReadError`] into its own error type.

/// Why a read failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadError {
    /// The bytes end before the value.
    Truncated,
    /// A string that is not UTF-8.
    BadText,
}

/// A cursor over section bytes.
pub struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader(bytes)
    }
    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.0
    }
    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], ReadError> {
        if self.0.len() < n {
            return Err(ReadError::Truncated);
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }
    pub fn u16(&mut self) -> Result<u16, ReadError> {
        let (b, rest) = self.0.split_first_chunk::<2>().ok_or(ReadError::Truncated)?;
        self.0 = rest;
        Ok(u16::from_le_bytes(*b))
    }
    pub fn u32(&mut self) -> Result<u32, ReadError> {
        let (b, rest) = self.0.split_first_chunk::<4>().ok_or(ReadError::Truncated)?;
        self.0 = rest;
        Ok(u32::from_le_bytes(*b))
    }
    /// A `u32` count of items of at least `min_size` bytes each, checked against what is left
    /// (so a corrupt count cannot make the caller reserve memory for items that are not there).
    pub fn count(&mut self, min_size: usize) -> Result<usize, ReadError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size) > self.0.len() {
            return Err(ReadError::Truncated);
        }
        Ok(n)
    }
    /// A length-prefixed UTF-8 string.
    pub fn string(&mut self) -> Result<String, ReadError> {
        let n = self.u32()? as usize;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| ReadError::BadText)
    }
}

pub fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}
pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}
/// A length-prefixed string ([`Reader::string`]).
pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len() as u32);
    out.extend_from_slice(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_truncation() {
        let mut out = Vec::new();
        put_u32(&mut out, 7);
        put_str(&mut out, "ab");
        put_u16(&mut out, 3);
        let mut r = Reader::new(&out);
        assert_eq!((r.u32(), r.string(), r.u16()), (Ok(7), Ok("ab".to_string()), Ok(3)));
        assert_eq!(r.u32(), Err(ReadError::Truncated));
        let mut r = Reader::new(&[5, 0, 0, 0, b'x']);
        assert_eq!(r.string(), Err(ReadError::Truncated));
        let mut r = Reader::new(&[1, 0, 0, 0, 0xff]);
        assert_eq!(r.string(), Err(ReadError::BadText));
        let mut r = Reader::new(&[0xff, 0xff, 0xff, 0x0f, 0]);
        assert_eq!(r.count(1), Err(ReadError::Truncated));
    }
}
