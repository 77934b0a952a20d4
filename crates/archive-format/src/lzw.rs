//! Unix `compress` (`.Z`) decoding: LZW with 9- to 16-bit codes, least significant
//! bit first, as written by ncompress and read by libpcp 6.0.3 (through `uncompress`).
//!
//! Two quirks of the format matter: in "block mode" code 256 clears the dictionary,
//! and whenever the code width changes (or a clear code is read) the writer pads the
//! current group of eight codes, so the reader skips to the end of that group.
//! No crate of the field reads this framing (weezl implements GIF/TIFF LZW), hence
//! this small streaming decoder.

use std::io::{self, Read};

const MAGIC: [u8; 2] = [0x1f, 0x9d];
const BLOCK_MODE: u8 = 0x80;
const BITS_MASK: u8 = 0x1f;
const CLEAR: u32 = 256;

fn bad(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("compress (.Z) data: {what}"),
    )
}

/// A reader yielding the decompressed bytes of a `.Z` stream.
pub struct LzwReader<R: Read> {
    inner: R,
    started: bool,
    max_bits: u32,
    block_mode: bool,
    n_bits: u32,
    /// Bit accumulator, least significant bits first.
    acc: u64,
    acc_bits: u32,
    /// Codes read since the current width started (groups of eight).
    codes_in_width: u32,
    prefix: Vec<u16>,
    suffix: Vec<u8>,
    free_ent: u32,
    old: Option<u32>,
    first_char: u8,
    /// Decoded bytes not yet handed out, stored reversed (the next byte is last);
    /// a string is decoded only once the previous one has been handed out.
    pending: Vec<u8>,
    done: bool,
}

impl<R: Read> LzwReader<R> {
    pub fn new(inner: R) -> Self {
        LzwReader {
            inner,
            started: false,
            max_bits: 16,
            block_mode: true,
            n_bits: 9,
            acc: 0,
            acc_bits: 0,
            codes_in_width: 0,
            prefix: vec![0; 1 << 16],
            suffix: (0..1u32 << 16).map(|i| (i & 0xff) as u8).collect(),
            free_ent: 256,
            old: None,
            first_char: 0,
            pending: Vec::new(),
            done: false,
        }
    }

    fn read_byte(&mut self) -> io::Result<Option<u8>> {
        let mut b = [0u8; 1];
        loop {
            return match self.inner.read(&mut b) {
                Ok(0) => Ok(None),
                Ok(_) => Ok(Some(b[0])),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Err(e),
            };
        }
    }

    fn header(&mut self) -> io::Result<()> {
        let mut h = [0u8; 3];
        self.inner
            .read_exact(&mut h)
            .map_err(|_| bad("missing header"))?;
        if h[..2] != MAGIC {
            return Err(bad("not in compress format"));
        }
        self.max_bits = u32::from(h[2] & BITS_MASK);
        if !(9..=16).contains(&self.max_bits) {
            return Err(bad("unsupported code width"));
        }
        self.block_mode = h[2] & BLOCK_MODE != 0;
        self.free_ent = if self.block_mode { 257 } else { 256 };
        self.started = true;
        Ok(())
    }

    /// Skips the rest of the current group of eight codes.
    fn skip_group(&mut self) -> io::Result<()> {
        let rem = self.codes_in_width % 8;
        if rem != 0 {
            let mut skip = (8 - rem) * self.n_bits;
            while skip > 0 {
                if self.acc_bits == 0 {
                    match self.read_byte()? {
                        Some(b) => {
                            self.acc = u64::from(b);
                            self.acc_bits = 8;
                        }
                        None => return Ok(()),
                    }
                }
                let n = skip.min(self.acc_bits);
                self.acc >>= n;
                self.acc_bits -= n;
                skip -= n;
            }
        }
        self.codes_in_width = 0;
        Ok(())
    }

    fn next_code(&mut self) -> io::Result<Option<u32>> {
        while self.acc_bits < self.n_bits {
            match self.read_byte()? {
                Some(b) => {
                    self.acc |= u64::from(b) << self.acc_bits;
                    self.acc_bits += 8;
                }
                // Trailing bits shorter than a code are padding.
                None => return Ok(None),
            }
        }
        let code = (self.acc & ((1u64 << self.n_bits) - 1)) as u32;
        self.acc >>= self.n_bits;
        self.acc_bits -= self.n_bits;
        self.codes_in_width += 1;
        Ok(Some(code))
    }

    /// Decodes one code into `pending`; false at the end of the stream.
    fn step(&mut self) -> io::Result<bool> {
        let Some(code) = self.next_code()? else {
            return Ok(false);
        };
        if self.block_mode && code == CLEAR {
            self.skip_group()?;
            self.n_bits = 9;
            self.free_ent = 256;
            self.old = None;
            return Ok(true);
        }
        let Some(old) = self.old else {
            if code > 255 {
                return Err(bad("first code is not a literal"));
            }
            self.first_char = code as u8;
            self.pending.push(code as u8);
            self.old = Some(code);
            self.free_ent = self.free_ent.max(if self.block_mode { 257 } else { 256 });
            return Ok(true);
        };
        let mut cur = code;
        if code >= self.free_ent {
            if code > self.free_ent {
                return Err(bad("code out of range"));
            }
            // The KwKwK case: the string is old's string plus its first byte.
            self.pending.push(self.first_char);
            cur = old;
        }
        let mut guard = 0u32;
        while cur >= 256 {
            self.pending.push(self.suffix[cur as usize]);
            cur = u32::from(self.prefix[cur as usize]);
            guard += 1;
            if guard > 1 << 16 {
                return Err(bad("dictionary loop"));
            }
        }
        self.first_char = cur as u8;
        self.pending.push(self.first_char);
        if self.free_ent < (1 << self.max_bits) {
            self.prefix[self.free_ent as usize] = old as u16;
            self.suffix[self.free_ent as usize] = self.first_char;
            self.free_ent += 1;
        }
        self.old = Some(code);
        if self.free_ent > (1 << self.n_bits) - 1 && self.n_bits < self.max_bits {
            self.skip_group()?;
            self.n_bits += 1;
        }
        Ok(true)
    }
}

impl<R: Read> Read for LzwReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.started {
            self.header()?;
        }
        while self.pending.is_empty() && !self.done {
            if !self.step()? {
                self.done = true;
            }
        }
        let n = buf.len().min(self.pending.len());
        for b in buf.iter_mut().take(n) {
            // pending is reversed: the next byte is at the end.
            if let Some(x) = self.pending.pop() {
                *b = x;
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(data: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        LzwReader::new(data).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn rejects_bad_magic() {
        assert!(decode(b"\x1f\x8b\x08abc").is_err());
    }

    #[test]
    fn decodes_literals_and_kwkwk() {
        // "abababa" compressed by ncompress -b 16: literals a, b, then codes 256 and 258
        // (the second one is the KwKwK case).
        let z = [0x1f, 0x9d, 0x90, 0x61, 0xc4, 0x04, 0x1c, 0x08];
        assert_eq!(decode(&z).unwrap(), b"abababa");
    }
}
