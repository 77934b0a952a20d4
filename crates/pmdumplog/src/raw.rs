//! `pmdumplog -v FILE`: hex dump of the framed records of one physical file.

use std::io::{self, Write};

pub fn dump(prog: &str, path: &str, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) => {
            let msg = archive_format::pm_err_str(-e.raw_os_error().unwrap_or(5));
            writeln!(err, "{prog}: Cannot open \"{path}\": {msg}")?;
            return Ok(1);
        }
    };
    writeln!(out, "Raw dump of physical archive file \"{path}\" ...")?;
    let mut off = 0usize;
    while off + 4 <= data.len() {
        let len = i32::from_be_bytes([data[off], data[off + 1], data[off + 2], data[off + 3]]);
        write!(out, "Dump ... record len: {len} @ offset: {off}")?;
        off += 4;
        let body = (len as i64 - 8).max(0) as usize;
        let mut eof = false;
        for i in 0..body {
            if off >= data.len() {
                writeln!(out, "Unexpected EOF")?;
                eof = true;
                break;
            }
            if i % 32 == 0 {
                writeln!(out)?;
            }
            if i % 4 == 0 {
                write!(out, " ")?;
            }
            write!(out, "{:02x}", data[off])?;
            off += 1;
        }
        writeln!(out)?;
        if eof {
            // as PCP: the trailer cannot be read either
            writeln!(out, "Unexpected EOF")?;
            break;
        }
        if off + 4 > data.len() {
            if off == data.len() {
                writeln!(out, "Unexpected EOF")?;
            }
            break;
        }
        let check = i32::from_be_bytes([data[off], data[off + 1], data[off + 2], data[off + 3]]);
        off += 4;
        if check != len {
            writeln!(out, "Trailer botch: {check} != {len}")?;
            break;
        }
    }
    Ok(0)
}
