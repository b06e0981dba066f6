//! Reading the fixed-width big-endian integers a DUMPI file is made of.
//!
//! The file is read whole into memory; every read is bounds-checked, so a
//! truncated or corrupt file ends in a [`ConfigError`] naming the file and the
//! byte offset, never in a panic or a huge allocation.

use crate::error::{ConfigError, Result};

/// A position in one DUMPI file's bytes.
pub struct ByteReader<'a> {
    path: &'a str,
    data: &'a [u8],
    pos: usize,
    /// What ends `data`, for messages: the file, or the section after it.
    end: &'static str,
}

/// The error for bad bytes at `offset` of the file at `path`.
pub fn corrupt(path: &str, offset: usize, message: impl std::fmt::Display) -> ConfigError {
    ConfigError::new(path, format!("byte offset {offset}: {message}"))
}

impl<'a> ByteReader<'a> {
    /// A reader at `pos` of `data`, the contents of the file at `path`.
    pub fn at(path: &'a str, data: &'a [u8], pos: u64) -> Result<ByteReader<'a>> {
        if pos > data.len() as u64 {
            return Err(corrupt(path, data.len(), format!("the index points at offset {pos}, past the end of the file; the file is truncated")));
        }
        Ok(ByteReader { path, data, pos: pos as usize, end: "the end of the file" })
    }

    /// The same reader stopped at byte `end`, where `section` begins: reads
    /// past it fail as running into that section.
    pub fn bounded(self, end: usize, section: &'static str) -> ByteReader<'a> {
        ByteReader { data: &self.data[..end.min(self.data.len())], end: section, ..self }
    }

    /// Current byte offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left after the current offset.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// An error at the current offset.
    pub fn error(&self, message: impl std::fmt::Display) -> ConfigError {
        corrupt(self.path, self.pos, message)
    }

    /// An error at byte `offset` of the same file.
    pub fn error_at(&self, offset: usize, message: impl std::fmt::Display) -> ConfigError {
        corrupt(self.path, offset, message)
    }

    /// The next `n` bytes, for reading `what`.
    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.error(format!(
                "truncated while reading {what}: {n} bytes needed, {} left before {}",
                self.remaining(),
                self.end
            )));
        }
        let bytes = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    /// A byte.
    pub fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    /// A big-endian u16.
    pub fn u16(&mut self, what: &str) -> Result<u16> {
        let b = self.take(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    /// A big-endian u32.
    pub fn u32(&mut self, what: &str) -> Result<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A big-endian i32.
    pub fn i32(&mut self, what: &str) -> Result<i32> {
        Ok(self.u32(what)? as i32)
    }

    /// A big-endian u64.
    pub fn u64(&mut self, what: &str) -> Result<u64> {
        let b = self.take(8, what)?;
        let mut word = [0u8; 8];
        word.copy_from_slice(b);
        Ok(u64::from_be_bytes(word))
    }

    /// A 32-bit element count of an array of `element_bytes`-wide items,
    /// refused when negative or larger than the rest of the file could hold.
    pub fn count(&mut self, what: &str, element_bytes: usize) -> Result<usize> {
        let at = self.pos;
        let n = self.i32(what)?;
        let fits = (n as i64) * (element_bytes.max(1) as i64) <= self.remaining() as i64;
        if n < 0 || !fits {
            return Err(corrupt(
                self.path,
                at,
                format!("{what} count {n} is impossible with {} bytes left before {} (corrupt or truncated)", self.remaining(), self.end),
            ));
        }
        Ok(n as usize)
    }

    /// Text of `len` bytes (DUMPI writes no terminator), lossily decoded.
    pub fn text(&mut self, len: usize, what: &str) -> Result<String> {
        Ok(String::from_utf8_lossy(self.take(len, what)?).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_big_endian_and_refuses_to_run_off_the_end() {
        let data = [0x00, 0x7c, 0x4f, 0xff, 0xff, 0xff, 0xfe];
        let mut r = ByteReader::at("x.bin", &data, 0).unwrap();
        assert_eq!(r.u16("id").unwrap(), 124);
        assert_eq!(r.u8("mask").unwrap(), 0x4f);
        assert_eq!(r.i32("peer").unwrap(), -2);
        let e = r.u16("tag").unwrap_err();
        assert_eq!(e.field, "x.bin");
        assert!(e.message.starts_with("byte offset 7: truncated while reading tag"), "{}", e.message);
    }

    #[test]
    fn impossible_counts_are_errors_not_allocations() {
        let data = [0x7f, 0xff, 0xff, 0xff, 0, 0];
        let mut r = ByteReader::at("x.bin", &data, 0).unwrap();
        let e = r.count("requests", 4).unwrap_err();
        assert!(e.message.contains("byte offset 0: requests count"), "{}", e.message);
        assert!(ByteReader::at("x.bin", &data, 99).is_err());
    }
}
