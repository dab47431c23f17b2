//! Binary encoding of a [`PrintfTable`] (the contents of the `.ventus.printf` section).
//!
//! Layout, little-endian, no padding:
//!
//! ```text
//! table := "VPF1" u32:site_count site*
//! site  := u32:format_len format_bytes u32:arg_count arg*
//! arg   := u8:0 u8:bytes u8:lanes          Int
//!        | u8:1 u8:bytes u8:lanes          Float
//!        | u8:2                            Ptr
//!        | u8:3 u32:len bytes              Str
//! ```
//!
//! The magic carries the version: a future incompatible layout gets a new magic. [`PrintfTable::decode`]
//! validates everything (sizes 1/2/4/8 for Int, 2/4/8 for Float, lanes 1/2/3/4/8/16, at most
//! [`MAX_SITES`] sites, records of at most [`MAX_RECORD_BYTES`], no trailing bytes) and never
//! panics or pre-allocates from a count read from the input. [`PrintfTable::encode`] never fails;
//! a string longer than `u32::MAX` bytes is cut to `u32::MAX` bytes.

use super::{PrintfArg, PrintfError, PrintfSite, PrintfTable, MAX_RECORD_BYTES, MAX_SITES};

/// Magic and version of the encoding.
const MAGIC: &[u8; 4] = b"VPF1";

const TAG_INT: u8 = 0;
const TAG_FLOAT: u8 = 1;
const TAG_PTR: u8 = 2;
const TAG_STR: u8 = 3;

impl PrintfTable {
    /// Encodes the table in the `VPF1` format described in this module.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        put_count(&mut out, self.sites.len());
        for site in &self.sites {
            put_bytes(&mut out, &site.format);
            put_count(&mut out, site.args.len());
            for arg in &site.args {
                match arg {
                    PrintfArg::Int { bytes, lanes } => out.extend_from_slice(&[TAG_INT, *bytes, *lanes]),
                    PrintfArg::Float { bytes, lanes } => out.extend_from_slice(&[TAG_FLOAT, *bytes, *lanes]),
                    PrintfArg::Ptr => out.push(TAG_PTR),
                    PrintfArg::Str(s) => {
                        out.push(TAG_STR);
                        put_bytes(&mut out, s);
                    }
                }
            }
        }
        out
    }

    /// Decodes a `VPF1` encoding; every malformed input is an [`PrintfError`], never a panic.
    pub fn decode(bytes: &[u8]) -> Result<PrintfTable, PrintfError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(4)? != MAGIC {
            return Err(PrintfError::BadMagic);
        }
        let count = r.u32()?;
        if count > MAX_SITES {
            return Err(PrintfError::TooManySites { count });
        }
        let mut sites = Vec::new();
        for site_index in 0..count as usize {
            let format = r.string()?;
            let arg_count = r.u32()?;
            let mut args = Vec::new();
            // Every argument consumes at least one byte, so this loop is bounded by the input.
            for arg_index in 0..arg_count as usize {
                args.push(r.arg(site_index, arg_index)?);
            }
            let site = PrintfSite { format, args };
            let len = site.record_bytes();
            if len > MAX_RECORD_BYTES {
                return Err(PrintfError::RecordTooLong { site: site_index, bytes: len });
            }
            sites.push(site);
        }
        if r.pos != bytes.len() {
            return Err(PrintfError::TrailingBytes { offset: r.pos });
        }
        Ok(PrintfTable { sites })
    }
}

/// Writes a count as u32 (saturating; only absurd tables can exceed it and decode rejects them).
fn put_count(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

/// Writes a length-prefixed byte string, cut to `u32::MAX` bytes so prefix and contents agree.
fn put_bytes(out: &mut Vec<u8>, s: &[u8]) {
    let n = s.len().min(u32::MAX as usize);
    put_count(out, n);
    out.extend_from_slice(&s[..n]);
}

/// Bounds-checked cursor over the encoded bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], PrintfError> {
        let truncated = PrintfError::Truncated { offset: self.pos };
        let end = self.pos.checked_add(n).ok_or(truncated.clone())?;
        let s = self.bytes.get(self.pos..end).ok_or(truncated)?;
        self.pos = end;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8, PrintfError> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, PrintfError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn string(&mut self) -> Result<Vec<u8>, PrintfError> {
        let n = self.u32()? as usize;
        Ok(self.take(n)?.to_vec())
    }

    fn arg(&mut self, site: usize, arg: usize) -> Result<PrintfArg, PrintfError> {
        let tag = self.u8()?;
        match tag {
            TAG_INT | TAG_FLOAT => {
                let bytes = self.u8()?;
                let lanes = self.u8()?;
                let size_ok = match tag {
                    TAG_INT => matches!(bytes, 1 | 2 | 4 | 8),
                    _ => matches!(bytes, 2 | 4 | 8),
                };
                if !size_ok {
                    return Err(PrintfError::BadElementSize { site, arg, bytes });
                }
                if !matches!(lanes, 1 | 2 | 3 | 4 | 8 | 16) {
                    return Err(PrintfError::BadLanes { site, arg, lanes });
                }
                Ok(if tag == TAG_INT { PrintfArg::Int { bytes, lanes } } else { PrintfArg::Float { bytes, lanes } })
            }
            TAG_PTR => Ok(PrintfArg::Ptr),
            TAG_STR => Ok(PrintfArg::Str(self.string()?)),
            _ => Err(PrintfError::BadArgKind { site, arg, tag }),
        }
    }
}
