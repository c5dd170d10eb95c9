//! Where an ELF file ends, read from its own headers.
//!
//! An AppImage of type 2 is an ELF runtime with a squashfs image appended
//! right after it, so the image starts where the ELF ends: after the section
//! header table (usually the last thing in the file) or after the last byte
//! of a program segment, whichever is further. 32- and 64-bit files of either
//! byte order are understood.

use std::io::{self, Read, Seek, SeekFrom};

/// The AppImage type 2 magic, written into the ELF identification padding
/// (`e_ident[8..11]`, ignored by loaders) after linking.
pub const APPIMAGE_MAGIC: [u8; 3] = *b"AI\x02";
/// Offset of [`APPIMAGE_MAGIC`] in the file.
pub const APPIMAGE_MAGIC_OFFSET: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum ElfError {
    #[error("not an ELF file (no \\x7fELF magic)")]
    NotElf,
    #[error("unsupported ELF class {0} (expected 1 = 32-bit or 2 = 64-bit)")]
    BadClass(u8),
    #[error("unsupported ELF data encoding {0} (expected 1 = little or 2 = big endian)")]
    BadEncoding(u8),
    #[error("the ELF header is truncated")]
    Truncated,
    #[error("the ELF header's table sizes overflow")]
    Overflow,
    #[error("reading the ELF file: {0}")]
    Io(#[from] io::Error),
}

/// The fields of the ELF header the end of the file depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ElfHeader {
    pub is_64: bool,
    pub little_endian: bool,
    pub phoff: u64,
    pub phentsize: u16,
    pub phnum: u16,
    pub shoff: u64,
    pub shentsize: u16,
    pub shnum: u16,
    /// Whether `e_ident[8..11]` holds [`APPIMAGE_MAGIC`].
    pub appimage_magic: bool,
}

struct Fields<'a> {
    bytes: &'a [u8],
    little_endian: bool,
}

impl Fields<'_> {
    fn slice<const N: usize>(&self, at: usize) -> Result<[u8; N], ElfError> {
        let end = at.checked_add(N).ok_or(ElfError::Truncated)?;
        let s = self.bytes.get(at..end).ok_or(ElfError::Truncated)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }
    fn u16(&self, at: usize) -> Result<u16, ElfError> {
        let b = self.slice::<2>(at)?;
        Ok(if self.little_endian { u16::from_le_bytes(b) } else { u16::from_be_bytes(b) })
    }
    fn u32(&self, at: usize) -> Result<u32, ElfError> {
        let b = self.slice::<4>(at)?;
        Ok(if self.little_endian { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) })
    }
    fn u64(&self, at: usize) -> Result<u64, ElfError> {
        let b = self.slice::<8>(at)?;
        Ok(if self.little_endian { u64::from_le_bytes(b) } else { u64::from_be_bytes(b) })
    }
    /// An address-sized field: 4 bytes in a 32-bit file, 8 in a 64-bit one.
    fn word(&self, at: usize, is_64: bool) -> Result<u64, ElfError> {
        if is_64 { self.u64(at) } else { self.u32(at).map(u64::from) }
    }
}

impl ElfHeader {
    /// Parses the ELF header at the start of `bytes` (64 bytes are enough
    /// for either class).
    pub fn parse(bytes: &[u8]) -> Result<ElfHeader, ElfError> {
        if bytes.get(..4) != Some(b"\x7fELF".as_slice()) {
            return Err(ElfError::NotElf);
        }
        let class = *bytes.get(4).ok_or(ElfError::Truncated)?;
        let encoding = *bytes.get(5).ok_or(ElfError::Truncated)?;
        let is_64 = match class {
            1 => false,
            2 => true,
            other => return Err(ElfError::BadClass(other)),
        };
        let little_endian = match encoding {
            1 => true,
            2 => false,
            other => return Err(ElfError::BadEncoding(other)),
        };
        let f = Fields { bytes, little_endian };
        // Offsets of the fields in Elf32_Ehdr / Elf64_Ehdr.
        let (phoff, shoff, phentsize, phnum, shentsize, shnum) = if is_64 {
            (f.u64(0x20)?, f.u64(0x28)?, f.u16(0x36)?, f.u16(0x38)?, f.u16(0x3A)?, f.u16(0x3C)?)
        } else {
            (u64::from(f.u32(0x1C)?), u64::from(f.u32(0x20)?), f.u16(0x2A)?, f.u16(0x2C)?, f.u16(0x2E)?, f.u16(0x30)?)
        };
        let magic_end = APPIMAGE_MAGIC_OFFSET + APPIMAGE_MAGIC.len();
        let appimage_magic = bytes.get(APPIMAGE_MAGIC_OFFSET..magic_end) == Some(APPIMAGE_MAGIC.as_slice());
        Ok(ElfHeader { is_64, little_endian, phoff, phentsize, phnum, shoff, shentsize, shnum, appimage_magic })
    }

    /// The end of the section header table (0 when there is none).
    pub fn section_headers_end(&self) -> Result<u64, ElfError> {
        if self.shnum == 0 {
            return Ok(0);
        }
        let size = u64::from(self.shentsize).checked_mul(u64::from(self.shnum)).ok_or(ElfError::Overflow)?;
        self.shoff.checked_add(size).ok_or(ElfError::Overflow)
    }

    /// The end of the program header table (0 when there is none).
    fn program_headers_end(&self) -> Result<u64, ElfError> {
        if self.phnum == 0 {
            return Ok(0);
        }
        let size = u64::from(self.phentsize).checked_mul(u64::from(self.phnum)).ok_or(ElfError::Overflow)?;
        self.phoff.checked_add(size).ok_or(ElfError::Overflow)
    }

    /// The furthest end (`p_offset + p_filesz`) of the program segments,
    /// read from the program header table in `table` (the bytes at
    /// `e_phoff`, `e_phnum * e_phentsize` long).
    pub fn segments_end(&self, table: &[u8]) -> Result<u64, ElfError> {
        let f = Fields { bytes: table, little_endian: self.little_endian };
        // p_offset and p_filesz in Elf32_Phdr / Elf64_Phdr.
        let (offset_at, filesz_at) = if self.is_64 { (0x08, 0x20) } else { (0x04, 0x10) };
        let mut end = 0u64;
        for i in 0..usize::from(self.phnum) {
            let base = i * usize::from(self.phentsize);
            let offset = f.word(base + offset_at, self.is_64)?;
            let filesz = f.word(base + filesz_at, self.is_64)?;
            end = end.max(offset.checked_add(filesz).ok_or(ElfError::Overflow)?);
        }
        Ok(end)
    }
}

/// The size of the ELF file at the start of `file`: the offset at which an
/// AppImage's squashfs image starts.
pub fn elf_end<R: Read + Seek>(file: &mut R) -> Result<u64, ElfError> {
    let mut header = [0u8; 64];
    file.seek(SeekFrom::Start(0))?;
    let n = read_up_to(file, &mut header)?;
    let h = ElfHeader::parse(&header[..n])?;
    let mut end = h.section_headers_end()?.max(h.program_headers_end()?);
    if h.phnum > 0 {
        let len = usize::from(h.phentsize) * usize::from(h.phnum);
        let mut table = vec![0u8; len];
        file.seek(SeekFrom::Start(h.phoff))?;
        file.read_exact(&mut table).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => ElfError::Truncated,
            _ => ElfError::Io(e),
        })?;
        end = end.max(h.segments_end(&table)?);
    }
    // The ELF header itself, for a file with neither table.
    let header_size = if h.is_64 { 64 } else { 52 };
    Ok(end.max(header_size))
}

fn read_up_to<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn own_executable() -> Vec<u8> {
        std::fs::read("/proc/self/exe").expect("read /proc/self/exe")
    }

    #[test]
    fn the_end_of_a_real_elf_is_its_length() {
        // The test binary is a real ELF from the system linker, with
        // nothing after its section header table.
        let bytes = own_executable();
        let end = elf_end(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!(end, bytes.len() as u64);
        let h = ElfHeader::parse(&bytes).unwrap();
        assert!(h.is_64 == cfg!(target_pointer_width = "64"));
        assert!(h.shnum > 0 && h.phnum > 0);
    }

    #[test]
    fn data_appended_to_an_elf_is_not_counted() {
        let mut bytes = own_executable();
        let len = bytes.len() as u64;
        bytes.extend_from_slice(b"hsqs and a lot more data after the runtime");
        assert_eq!(elf_end(&mut Cursor::new(&bytes)).unwrap(), len);
    }

    #[test]
    fn the_appimage_magic_is_seen_in_the_padding() {
        let mut bytes = own_executable();
        assert!(!ElfHeader::parse(&bytes).unwrap().appimage_magic);
        bytes[APPIMAGE_MAGIC_OFFSET..APPIMAGE_MAGIC_OFFSET + 3].copy_from_slice(&APPIMAGE_MAGIC);
        assert!(ElfHeader::parse(&bytes).unwrap().appimage_magic);
        // The magic changes nothing else.
        assert_eq!(elf_end(&mut Cursor::new(&bytes)).unwrap(), bytes.len() as u64);
    }

    /// A minimal 32-bit big-endian ELF: header, one program header whose
    /// segment ends past the section header table.
    #[test]
    fn a_32_bit_big_endian_file_uses_its_segment_end_when_further() {
        let mut b = vec![0u8; 52 + 32];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 1; // ELFCLASS32
        b[5] = 2; // ELFDATA2MSB
        b[0x1C..0x20].copy_from_slice(&52u32.to_be_bytes()); // e_phoff
        b[0x20..0x24].copy_from_slice(&60u32.to_be_bytes()); // e_shoff
        b[0x2A..0x2C].copy_from_slice(&32u16.to_be_bytes()); // e_phentsize
        b[0x2C..0x2E].copy_from_slice(&1u16.to_be_bytes()); // e_phnum
        b[0x2E..0x30].copy_from_slice(&40u16.to_be_bytes()); // e_shentsize
        b[0x30..0x32].copy_from_slice(&1u16.to_be_bytes()); // e_shnum -> ends at 100
        b[52 + 4..52 + 8].copy_from_slice(&0u32.to_be_bytes()); // p_offset
        b[52 + 16..52 + 20].copy_from_slice(&4096u32.to_be_bytes()); // p_filesz
        assert_eq!(elf_end(&mut Cursor::new(&b)).unwrap(), 4096);
        b[52 + 16..52 + 20].copy_from_slice(&10u32.to_be_bytes());
        assert_eq!(elf_end(&mut Cursor::new(&b)).unwrap(), 100);
    }

    #[test]
    fn bad_input_gives_errors_not_panics() {
        assert!(matches!(elf_end(&mut Cursor::new(b"")), Err(ElfError::NotElf)));
        assert!(matches!(elf_end(&mut Cursor::new(b"#!/bin/sh\necho hi\n")), Err(ElfError::NotElf)));
        assert!(matches!(elf_end(&mut Cursor::new(b"\x7fELF")), Err(ElfError::Truncated)));
        assert!(matches!(elf_end(&mut Cursor::new(b"\x7fELF\x03\x01")), Err(ElfError::BadClass(3))));
        assert!(matches!(elf_end(&mut Cursor::new(b"\x7fELF\x02\x07")), Err(ElfError::BadEncoding(7))));
        // A header whose program header table lies past the end of the file.
        let mut bytes = own_executable()[..64].to_vec();
        bytes[0x20..0x28].copy_from_slice(&1_000_000u64.to_le_bytes());
        assert!(matches!(elf_end(&mut Cursor::new(&bytes)), Err(ElfError::Truncated)));
        // Sizes that overflow.
        bytes[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
        bytes[0x38..0x3A].copy_from_slice(&0u16.to_le_bytes());
        assert!(matches!(elf_end(&mut Cursor::new(&bytes)), Err(ElfError::Overflow)));
    }
}
