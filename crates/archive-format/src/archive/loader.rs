//! How an archive's files are loaded: through decompressed copies, on threads,
//! or read while they decode; and their labels checked.

use super::{nodata, OpenOptions, PREFIX};
use crate::codec::label::{decode_label, Label};
use crate::error::{DecodeError, DecodeErrorKind, Error, Result};
use crate::volume::{self, Bytes, FileRef};

/// How an archive's files are loaded: through the caller's decompressed copies,
/// and whether threads may decompress ahead.
#[derive(Debug, Clone, Default)]
pub(super) struct Loader {
    pub(super) cache: Option<volume::Decompressed>,
    pub(super) threads: bool,
    /// Threads may decompress volumes ahead of the reader
    /// ([`OpenOptions::no_read_ahead`] says not).
    pub(super) ahead: bool,
    /// Data volumes are read while they decode ([`OpenOptions::while_decoding`]).
    pub(super) growing: bool,
    /// The threads such a volume decodes on ([`OpenOptions::decoding_threads`]).
    decoding_threads: Option<usize>,
    /// Compressed data volumes are cut down to some metrics as they decode
    /// ([`OpenOptions::keep_only`]), once told which.
    pub(super) keep: Option<std::sync::Arc<volume::Keep>>,
    /// Compressed data volumes are read once as they decode
    /// ([`OpenOptions::streamed`]).
    pub(super) stream: Option<volume::Observe>,
}

impl Loader {
    /// The loader `opts` ask for, of an archive whose first volume is
    /// compressed or not (volumes are cut down only where it is).
    pub(super) fn of(opts: &OpenOptions, first_compressed: bool) -> Loader {
        let threads = !opts.single_threaded;
        let stream = opts.streamed.clone().filter(|_| threads);
        let keep = opts.keep_only.is_some()
            && stream.is_none()
            && first_compressed
            && threads
            && !opts.label_only
            && opts.decompressed.is_none();
        Loader {
            cache: opts.decompressed.clone(),
            threads,
            ahead: threads && !opts.no_read_ahead && stream.is_none(),
            growing: opts.while_decoding && threads,
            decoding_threads: opts.decoding_threads,
            keep: keep.then(Default::default),
            stream,
        }
    }

    /// File `fref` (data volume `role`, or the index or metadata).
    pub(super) fn load(&self, fref: &FileRef, role: i32) -> Result<Bytes> {
        if let Some(k) = self.keep.as_ref().filter(|_| role >= 0) {
            if let Some(b) = volume::load_cut(fref, role, k) {
                return Ok(b);
            }
        }
        if let Some(o) = self.stream.as_ref().filter(|_| role >= 0) {
            return volume::load_streamed(fref, (o.0)(fref));
        }
        if self.growing && role >= 0 {
            return volume::load_while_decoding(fref, self.decoding_threads);
        }
        volume::load_with(fref, self.cache.as_ref())
    }

    /// The first bytes of a compressed volume, enough for its label and to tell
    /// that more follows; and the label, which must say it is volume `role`.
    pub(super) fn label_prefix(&self, fref: &FileRef, role: i32) -> Result<(Vec<u8>, Label)> {
        use std::io::Read;
        let io = |e: std::io::Error| Error::io(&fref.path, &e);
        let file = std::fs::File::open(&fref.path).map_err(io)?;
        let mut head = Vec::with_capacity(PREFIX);
        match fref.compression {
            Some(c) => crate::compress::decoder(c, file).map_err(io)?,
            None => Box::new(file) as Box<dyn Read>,
        }
        .take(PREFIX as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
        if head.len() < 4 {
            return Err(nodata(&fref.path));
        }
        let label = decode_label(&head).map_err(|e| Error::decode(&fref.path, e))?;
        if label.vol != role {
            let what = DecodeErrorKind::Label("volume number in label does not match the file");
            return Err(Error::decode(&fref.path, DecodeError::new(20, what)));
        }
        Ok((head, label))
    }

    /// The file's bytes and its label, which must say it is this file (`role`: a
    /// volume number, or the index's or metadata's).
    pub(super) fn labelled(&self, fref: &FileRef, role: i32) -> Result<(Bytes, Label)> {
        self.checked(fref, role, true)
    }

    /// A file and its label; with `strict`, the label must say it is this file
    /// (`role`: a volume number, or the index's or metadata's). libpcp checks that
    /// when it opens an archive, not when reading goes on into a later volume: a
    /// later "volume" whose label says otherwise is read on, record by record.
    pub(super) fn checked(
        &self,
        fref: &FileRef,
        role: i32,
        strict: bool,
    ) -> Result<(Bytes, Label)> {
        let bytes = self.load(fref, role)?;
        if bytes.size() < 4 {
            return Err(nodata(&fref.path));
        }
        // (only the label's bytes, of a volume still decoding)
        let head = bytes.head(PREFIX).map_err(|e| Error::io(&fref.path, &e))?;
        let label = decode_label(&head).map_err(|e| Error::decode(&fref.path, e))?;
        if strict && label.vol != role {
            return Err(Error::decode(
                &fref.path,
                DecodeError::new(
                    20,
                    DecodeErrorKind::Label("volume number in label does not match the file"),
                ),
            ));
        }
        Ok((bytes, label))
    }
}

impl super::Archive {
    /// For an archive opened [`OpenOptions::streamed`]: every volume's decoding let
    /// run to its end and waited for. Whether every volume loaded so far decoded
    /// whole and every read of it was served.
    pub fn finish_streams(&self) -> bool {
        let mut all = true;
        for b in self.loaded() {
            all &= b.finish_stream();
        }
        all
    }

    /// Whether a volume loaded so far is being read while it decodes
    /// ([`OpenOptions::while_decoding`]; the first is loaded when the archive
    /// opens).
    pub fn decoding(&self) -> bool {
        self.loaded().any(Bytes::decoding)
    }

    /// Whether every volume read so far was read whole: `false` when one opened
    /// [`OpenOptions::while_decoding`] failed to decode part way (libpcp could not
    /// have used it). Waits for the volumes still decoding.
    pub fn decoded_whole(&self) -> bool {
        self.loaded().all(Bytes::whole)
    }

    /// The bytes of the volumes loaded so far (and usable).
    pub(super) fn loaded(&self) -> impl Iterator<Item = &Bytes> {
        self.volumes
            .iter()
            .filter_map(|v| v.bytes.get().and_then(Option::as_ref))
    }
}
