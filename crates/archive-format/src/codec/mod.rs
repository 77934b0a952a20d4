//! Pure codecs: bytes in, values out (and back), no I/O. Every on-disk integer is
//! big-endian. Offsets in errors are file offsets: callers pass the file offset of the
//! slice they hand in.

pub mod cursor;
pub mod event;
pub mod index;
pub mod label;
pub mod meta;
pub mod rawlabel;
pub mod recode;
pub mod record;
pub mod result;
pub mod strip;

pub use cursor::{Cursor, PutBe};
