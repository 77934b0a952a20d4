//! `pmdumplog --json`: the archive as JSON. One document line for the label and
//! metadata, then one line per record so that the output streams.

use crate::opts::Opts;
use std::io::{self, Write};

pub fn dump(_o: &Opts, _out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    writeln!(err, "pmdumplog: --json is not implemented yet")?;
    Ok(1)
}
