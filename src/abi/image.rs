//! Official launch images: `.metadata` + `.data` text files, format V2 (driver-abi §8.1, §8.2).
//!
//! Contract:
//! * Both files hold one 32-bit word per line as hexadecimal (the official files use exactly 8
//!   digits; 1–8 digits are accepted, surrounding whitespace and blank lines are ignored, line
//!   numbers in errors are 1-based and count blank lines).
//! * `.metadata`: 64-bit items, each written as two lines (low word, then high word). Items:
//!   `start_pc, kernel_id, num_groups[3], wf_size, wg_size, metaDataBaseAddr, ldsSize, pdsSize,
//!   sgprUsage, vgprUsage, pdsBaseAddr, n, base[n], size[n], allocsize[n]`, so the item count must
//!   be exactly `14 + 3n`. Every item except `kernel_id` must fit in 32 bits, each buffer must
//!   satisfy `size <= alloc_size` and `base + alloc_size <= 2^32`.
//! * `.data`: for each buffer with `size > 0`, in buffer order, `ceil(size / 4)` words; each word
//!   is stored little-endian and the buffer's bytes are truncated to `size`. After the last
//!   buffer only all-zero words may follow; anything else is an error.

use std::fmt;
use std::path::{Path, PathBuf};

/// Number of fixed items before the buffer table (`start_pc` .. `n`).
const FIXED_ITEMS: usize = 14;

/// One buffer of a launch image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageBuffer {
    /// Device address of the buffer.
    pub base: u32,
    /// Bytes of initial data (`size[i]`).
    pub size: u32,
    /// Bytes reserved at `base` (`allocsize[i]`); the part after `data` is zero.
    pub alloc_size: u32,
    /// Exactly `size` bytes of initial contents.
    pub data: Vec<u8>,
}

/// A parsed V2 launch image: the driver meta of §2.2 plus the initial memory contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchImage {
    /// PC every warp starts at (`0x80000000`).
    pub start_pc: u32,
    /// `kernel_id` (0 in official images).
    pub kernel_id: u64,
    /// Work-groups per dimension (`kernel_size[3]`).
    pub num_groups: [u32; 3],
    /// Threads per warp (`wf_size`, numt).
    pub threads_per_warp: u32,
    /// Warps per work-group (`wg_size`, numw).
    pub warps_per_group: u32,
    /// Address of the kernel metadata buffer (`CSR_KNL`).
    pub metadata_base: u32,
    /// `ldsSize`.
    pub lds_size: u32,
    /// `pdsSize` (private bytes per thread).
    pub pds_size: u32,
    /// `sgprUsage`.
    pub sgpr_usage: u32,
    /// `vgprUsage`.
    pub vgpr_usage: u32,
    /// Base of the private-memory block (`CSR_PDS`).
    pub pds_base: u32,
    /// Buffers in file order.
    pub buffers: Vec<ImageBuffer>,
}

/// Which of the two files an error refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFile {
    /// The `.metadata` file.
    Metadata,
    /// The `.data` file.
    Data,
}

/// Why a launch image was rejected.
#[derive(Debug)]
pub enum ImageError {
    /// A file could not be read.
    Io { path: PathBuf, source: std::io::Error },
    /// A line is not a hexadecimal 32-bit word.
    BadWord { file: ImageFile, line: usize },
    /// The metadata has an odd number of words (items are 64-bit).
    OddWordCount { words: usize },
    /// The metadata has fewer than the 14 fixed items.
    TooFewItems { items: usize },
    /// The item count is not `14 + 3n` for the declared buffer count `n`.
    CountMismatch { buffers: u64, items: usize },
    /// A field that must fit in 32 bits does not; `line` is its low-word line.
    ValueTooLarge { field: &'static str, line: usize, value: u64 },
    /// Buffer `buffer` declares more initial data than it reserves.
    SizeExceedsAlloc { buffer: usize, size: u32, alloc_size: u32 },
    /// Buffer `buffer` extends past the 32-bit address space.
    BufferOverflows { buffer: usize },
    /// The `.data` file ends inside buffer `buffer`.
    DataTooShort { buffer: usize, needed_words: usize, available_words: usize },
    /// A non-zero word follows the last buffer's data.
    TrailingData { line: usize },
}

impl fmt::Display for ImageFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Metadata => ".metadata",
            Self::Data => ".data",
        })
    }
}

impl fmt::Display for ImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Self::BadWord { file, line } => {
                write!(f, "{file} line {line}: not a hexadecimal 32-bit word")
            }
            Self::OddWordCount { words } => {
                write!(f, ".metadata: {words} words is not a whole number of 64-bit items")
            }
            Self::TooFewItems { items } => {
                write!(f, ".metadata: {items} items, at least {FIXED_ITEMS} required")
            }
            Self::CountMismatch { buffers, items } => {
                write!(f, ".metadata: {items} items do not match {buffers} buffers (expected 14 + 3n)")
            }
            Self::ValueTooLarge { field, line, value } => {
                write!(f, ".metadata line {line}: {field} = {value:#x} does not fit in 32 bits")
            }
            Self::SizeExceedsAlloc { buffer, size, alloc_size } => {
                write!(f, "buffer {buffer}: size {size:#x} exceeds allocation size {alloc_size:#x}")
            }
            Self::BufferOverflows { buffer } => {
                write!(f, "buffer {buffer} extends past the 32-bit address space")
            }
            Self::DataTooShort { buffer, needed_words, available_words } => {
                write!(f, ".data: buffer {buffer} needs {needed_words} words, only {available_words} left")
            }
            Self::TrailingData { line } => {
                write!(f, ".data line {line}: non-zero data after the last buffer")
            }
        }
    }
}

impl std::error::Error for ImageError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// A word together with its 1-based line number.
type Word = (usize, u32);

/// A 64-bit metadata item together with the line of its low word.
type Item = (usize, u64);

impl LaunchImage {
    /// Parses a V2 image from the text of its `.metadata` and `.data` files.
    pub fn parse(metadata_text: &str, data_text: &str) -> Result<LaunchImage, ImageError> {
        let items = parse_items(metadata_text)?;
        let n = check_count(&items)?;
        let fixed = |i: usize, name| fit_u32(items[i], name);
        let tables = &items[FIXED_ITEMS..];
        let mut buffers = (0..n)
            .map(|i| buffer_header(i, tables[i], tables[n + i], tables[2 * n + i]))
            .collect::<Result<Vec<_>, _>>()?;
        fill_buffers(&mut buffers, &parse_words(data_text, ImageFile::Data)?)?;
        Ok(LaunchImage {
            start_pc: fixed(0, "start_pc")?,
            kernel_id: items[1].1,
            num_groups: [fixed(2, "kernel_size[0]")?, fixed(3, "kernel_size[1]")?, fixed(4, "kernel_size[2]")?],
            threads_per_warp: fixed(5, "wf_size")?,
            warps_per_group: fixed(6, "wg_size")?,
            metadata_base: fixed(7, "metaDataBaseAddr")?,
            lds_size: fixed(8, "ldsSize")?,
            pds_size: fixed(9, "pdsSize")?,
            sgpr_usage: fixed(10, "sgprUsage")?,
            vgpr_usage: fixed(11, "vgprUsage")?,
            pds_base: fixed(12, "pdsBaseAddr")?,
            buffers,
        })
    }

    /// Reads `<stem>.metadata` and the `<stem>.data` beside it and parses them.
    pub fn load(metadata_path: &Path) -> Result<LaunchImage, ImageError> {
        let metadata = read_text(metadata_path)?;
        let data = read_text(&metadata_path.with_extension("data"))?;
        Self::parse(&metadata, &data)
    }

    /// Total number of work-groups (`x * y * z`).
    pub fn total_groups(&self) -> u64 {
        self.num_groups.iter().map(|&g| u64::from(g)).product()
    }

    /// The buffer whose reserved range `[base, base + alloc_size)` contains `addr`.
    pub fn buffer_containing(&self, addr: u32) -> Option<&ImageBuffer> {
        self.buffers.iter().find(|b| addr >= b.base && u64::from(addr) < u64::from(b.base) + u64::from(b.alloc_size))
    }
}

/// Reads a whole file as text.
fn read_text(path: &Path) -> Result<String, ImageError> {
    std::fs::read_to_string(path).map_err(|source| ImageError::Io { path: path.to_path_buf(), source })
}

/// Parses one hexadecimal word (1–8 digits, no prefix).
fn parse_word(text: &str) -> Option<u32> {
    let valid = (1..=8).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_hexdigit());
    valid.then(|| u32::from_str_radix(text, 16).ok())?
}

/// Parses all non-blank lines of a file into words.
fn parse_words(text: &str, file: ImageFile) -> Result<Vec<Word>, ImageError> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .map(|(line, l)| parse_word(l).map(|w| (line, w)).ok_or(ImageError::BadWord { file, line }))
        .collect()
}

/// Parses the metadata into 64-bit items (low word line first).
fn parse_items(text: &str) -> Result<Vec<Item>, ImageError> {
    let words = parse_words(text, ImageFile::Metadata)?;
    if words.len() % 2 != 0 {
        return Err(ImageError::OddWordCount { words: words.len() });
    }
    Ok(words.chunks_exact(2).map(|p| (p[0].0, u64::from(p[0].1) | (u64::from(p[1].1) << 32))).collect())
}

/// Checks `count == 14 + 3n` and returns `n`.
fn check_count(items: &[Item]) -> Result<usize, ImageError> {
    if items.len() < FIXED_ITEMS {
        return Err(ImageError::TooFewItems { items: items.len() });
    }
    let buffers = items[FIXED_ITEMS - 1].1;
    let mismatch = ImageError::CountMismatch { buffers, items: items.len() };
    let expected = buffers.checked_mul(3).and_then(|b| b.checked_add(FIXED_ITEMS as u64));
    match expected {
        Some(e) if e == items.len() as u64 => Ok((buffers as usize).min(items.len())),
        _ => Err(mismatch),
    }
}

/// Narrows an item to `u32` or reports which field overflowed.
fn fit_u32(item: Item, field: &'static str) -> Result<u32, ImageError> {
    u32::try_from(item.1).map_err(|_| ImageError::ValueTooLarge { field, line: item.0, value: item.1 })
}

/// Validates one buffer's `(base, size, allocsize)` triple.
fn buffer_header(index: usize, base: Item, size: Item, alloc: Item) -> Result<ImageBuffer, ImageError> {
    let base = fit_u32(base, "base")?;
    let size = fit_u32(size, "size")?;
    let alloc_size = fit_u32(alloc, "allocsize")?;
    if size > alloc_size {
        return Err(ImageError::SizeExceedsAlloc { buffer: index, size, alloc_size });
    }
    if u64::from(base) + u64::from(alloc_size) > 1 << 32 {
        return Err(ImageError::BufferOverflows { buffer: index });
    }
    Ok(ImageBuffer { base, size, alloc_size, data: Vec::new() })
}

/// Distributes the `.data` words over the buffers and checks what is left over.
fn fill_buffers(buffers: &mut [ImageBuffer], words: &[Word]) -> Result<(), ImageError> {
    let mut rest = words;
    for (index, buffer) in buffers.iter_mut().enumerate() {
        let needed = (buffer.size as usize).div_ceil(4);
        if rest.len() < needed {
            return Err(ImageError::DataTooShort { buffer: index, needed_words: needed, available_words: rest.len() });
        }
        let (mine, tail) = rest.split_at(needed);
        buffer.data = mine.iter().flat_map(|(_, w)| w.to_le_bytes()).collect();
        buffer.data.truncate(buffer.size as usize);
        rest = tail;
    }
    match rest.iter().find(|(_, w)| *w != 0) {
        Some(&(line, _)) => Err(ImageError::TrailingData { line }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/testdata/ventus-official");

    fn load(rel: &str) -> LaunchImage {
        LaunchImage::load(&Path::new(ROOT).join(rel)).expect(rel)
    }

    fn layout(img: &LaunchImage) -> Vec<(u32, u32, u32)> {
        img.buffers.iter().map(|b| (b.base, b.size, b.alloc_size)).collect()
    }

    fn word(b: &ImageBuffer, i: usize) -> u32 {
        u32::from_le_bytes(b.data[4 * i..4 * i + 4].try_into().unwrap())
    }

    /// Builds metadata text from 64-bit items.
    fn meta_text(items: &[u64]) -> String {
        items.iter().map(|&v| format!("{:08x}\n{:08x}\n", v as u32, (v >> 32) as u32)).collect()
    }

    /// A small valid image: one buffer of 6 bytes at 0x90000000 plus one of size 0.
    fn small_items() -> Vec<u64> {
        let mut items = vec![0x8000_0000, 0, 2, 1, 1, 8, 4, 0x9000_2000, 0x1000];
        items.extend([0x1000, 64, 64, 0x9000_1000, 2]);
        items.extend([0x9000_0000, 0x9000_1000, 6, 0, 0x1000, 0x10_0000]);
        items
    }

    #[test]
    fn every_official_image_parses() {
        let mut seen = 0;
        let dirs = std::fs::read_dir(ROOT).unwrap().map(|d| d.unwrap().path());
        for dir in dirs.filter(|d| d.is_dir()) {
            for file in std::fs::read_dir(dir).unwrap() {
                let path = file.unwrap().path();
                if path.extension().is_some_and(|e| e == "metadata") {
                    let img = LaunchImage::load(&path).unwrap_or_else(|e| panic!("{e}"));
                    assert_eq!(img.start_pc, 0x8000_0000);
                    assert_eq!(img.buffers.last().unwrap().base, img.metadata_base);
                    seen += 1;
                }
            }
        }
        assert_eq!(seen, 11);
    }

    #[test]
    fn matadd_image() {
        let img = load("adv_matadd/matadd.metadata");
        assert_eq!(img.num_groups, [1, 1, 1]);
        assert_eq!((img.warps_per_group, img.threads_per_warp), (4, 4));
        assert_eq!((img.kernel_id, img.metadata_base), (0, 0x9001_4000));
        assert_eq!((img.lds_size, img.pds_size), (0x1000, 0x1000));
        assert_eq!((img.sgpr_usage, img.vgpr_usage), (64, 64));
        assert_eq!(img.pds_base, 0x9000_4000);
        assert_eq!(
            layout(&img),
            vec![
                (0x9000_0000, 0x40, 0x40),
                (0x9000_1000, 0x40, 0x40),
                (0x9000_2000, 0x40, 0x40),
                (0x9000_3000, 0xc, 0xc),
                (0x8000_0000, 0x4d8, 0x1000_0000),
                (0x9000_4000, 0, 0x10000),
                (0x9001_4000, 0x40, 0x40),
            ]
        );
        // Kernel args = the three matrix addresses; metadata word 0 = entry 0x800000a8 (§8.4).
        let args = &img.buffers[3];
        assert_eq!(word(args, 0), 0x9000_0000);
        assert_eq!(word(args, 2), 0x9000_2000);
        assert_eq!(word(&img.buffers[6], 0), 0x8000_00a8);
        assert!(img.buffers[5].data.is_empty());
        assert_eq!(img.buffers[4].data.len(), 0x4d8);
        // crt0 starts with auipc gp (0x00004197 in this build, see matadd.log).
        assert_eq!(word(&img.buffers[4], 0), 0x0000_4197);
    }

    #[test]
    fn vecadd_4x16_image() {
        let img = load("adv_vecadd_4x16/vecadd.metadata");
        assert_eq!((img.warps_per_group, img.threads_per_warp), (4, 16));
        assert_eq!(img.metadata_base, 0x9004_4000);
        assert_eq!(img.buffers[5].alloc_size, 0x40000);
        let (a, b, c) = (&img.buffers[0], &img.buffers[1], &img.buffers[2]);
        assert_eq!((a.size, b.size, c.size), (0x100, 0x100, 0x100));
        for i in 0..64 {
            let sum = f32::from_bits(word(a, i)) + f32::from_bits(word(b, i));
            assert_eq!(sum, 64.0, "A[{i}] + B[{i}]");
        }
    }

    #[test]
    fn gaussian_images() {
        let first = load("adv_gaussian_1x16/Fan1_0.metadata");
        assert_eq!((first.warps_per_group, first.threads_per_warp), (1, 16));
        assert_eq!(first.buffers.len(), 7);
        assert_eq!(first.buffers[0].base, 0x9000_2000); // not in address order
        assert_eq!(first.buffers[3].size, 0x14); // 5 argument words
        let later = load("adv_gaussian_1x16/Fan2_2.metadata");
        assert_eq!(
            layout(&later),
            vec![
                (0x9005_d000, 0x14, 0x14),
                (0x8000_0000, 0x5a8, 0x1000_0000),
                (0x9005_e000, 0, 0x10000),
                (0x9006_e000, 0x40, 0x40),
            ]
        );
    }

    #[test]
    fn multi_group_images() {
        let img = load("sim-verilator-vecadd/vecadd_32b4w8t.metadata");
        assert_eq!(img.num_groups, [32, 1, 1]);
        assert_eq!(img.total_groups(), 32);
        assert_eq!((img.warps_per_group, img.threads_per_warp), (4, 8));
        assert_eq!(img.pds_base, 0x9000_4000);
        assert_eq!(img.buffers[5].alloc_size, 0x40_0000);
        let big = load("sim-verilator-vecadd/vecadd_64b32w32t.metadata");
        assert_eq!(big.num_groups, [64, 1, 1]);
        assert_eq!((big.warps_per_group, big.threads_per_warp), (32, 32));
        assert_eq!(big.metadata_base, 0xa00c_1000);
        assert_eq!(big.buffer_containing(0x9004_0004).unwrap().base, 0x9004_0000);
        assert_eq!(big.buffer_containing(0x8fff_ffff).unwrap().base, 0x8000_0000);
        assert!(big.buffer_containing(0xa00c_1040).is_none());
    }

    #[test]
    fn small_image_and_truncated_data() {
        let meta = meta_text(&small_items());
        let img = LaunchImage::parse(&meta, "04030201\n00000605\n00000000\n\n").unwrap();
        assert_eq!(img.buffers[0].data, vec![1, 2, 3, 4, 5, 6]);
        assert_eq!(img.num_groups, [2, 1, 1]);
        let err = LaunchImage::parse(&meta, "04030201\n").unwrap_err();
        assert!(matches!(err, ImageError::DataTooShort { buffer: 0, needed_words: 2, .. }));
        let err = LaunchImage::parse(&meta, "1\n2\n0\n3\n").unwrap_err();
        assert!(matches!(err, ImageError::TrailingData { line: 4 }));
    }

    #[test]
    fn metadata_errors() {
        let data = "0\n0\n";
        let mut items = small_items();
        items[13] = 3;
        let err = LaunchImage::parse(&meta_text(&items), data).unwrap_err();
        assert!(matches!(err, ImageError::CountMismatch { buffers: 3, items: 20 }));
        items[13] = u64::MAX;
        assert!(LaunchImage::parse(&meta_text(&items), data).is_err());
        let mut items = small_items();
        items[7] = 0x1_0000_0000;
        let err = LaunchImage::parse(&meta_text(&items), data).unwrap_err();
        let expected = ImageError::ValueTooLarge { field: "metaDataBaseAddr", line: 15, value: 0x1_0000_0000 };
        assert_eq!(err.to_string(), expected.to_string());
        let mut items = small_items();
        items[16] = 0x2000; // size > allocsize
        let err = LaunchImage::parse(&meta_text(&items), data).unwrap_err();
        assert!(matches!(err, ImageError::SizeExceedsAlloc { buffer: 0, .. }));
        let mut items = small_items();
        items[15] = 0xffff_f000; // base + allocsize overflows
        let err = LaunchImage::parse(&meta_text(&items), data).unwrap_err();
        assert!(matches!(err, ImageError::BufferOverflows { buffer: 1 }));
        let err = LaunchImage::parse("80000000\n0\nzz\n", data).unwrap_err();
        assert!(matches!(err, ImageError::BadWord { file: ImageFile::Metadata, line: 3 }));
        let err = LaunchImage::parse("1\n2\n3\n", data).unwrap_err();
        assert!(matches!(err, ImageError::OddWordCount { words: 3 }));
        let err = LaunchImage::parse("", data).unwrap_err();
        assert!(matches!(err, ImageError::TooFewItems { items: 0 }));
        let err = LaunchImage::parse(&meta_text(&small_items()), "123456789\n").unwrap_err();
        assert!(matches!(err, ImageError::BadWord { file: ImageFile::Data, line: 1 }));
    }

    #[test]
    fn missing_file_is_io_error() {
        let err = LaunchImage::load(Path::new("/nonexistent/x.metadata")).unwrap_err();
        assert!(matches!(err, ImageError::Io { .. }));
        assert!(err.to_string().contains("/nonexistent/x.metadata"));
    }

    #[test]
    fn mutated_official_text_never_panics() {
        let dir = Path::new(ROOT).join("adv_matadd");
        let meta = std::fs::read_to_string(dir.join("matadd.metadata")).unwrap();
        let data = std::fs::read_to_string(dir.join("matadd.data")).unwrap();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..3000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut m = meta.clone().into_bytes();
            let at = (state % m.len() as u64) as usize;
            m[at] = b"0123456789abcdefg \n"[(state >> 32) as usize % 19];
            let cut = (state >> 40) as usize % (data.len() + 1);
            let m = String::from_utf8(m).unwrap();
            let _ = LaunchImage::parse(&m, &data[..cut]);
        }
        assert!(LaunchImage::parse(&meta, &data[..data.len() / 2]).is_err());
    }
}
