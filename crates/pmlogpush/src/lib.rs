//! pmlogpush, as PCP 7.2's: sends an archive to pmproxy's `/logger` REST API, as
//! PCP 7's pmlogger sends a recording: the label of its first data volume, then
//! the rest of its metadata, its temporal index and each data volume, in pieces of
//! up to 8 KiB (decompressed, when the files are compressed).
//!
//! - [`http`]: the HTTP/1.1 client libpcp's is (also pmlogger's, for its push).
//! - [`logger`]: the `/logger` API, its requests and checks.
//! - [`opts`]: the command line.

pub mod http;
pub mod logger;
pub mod opts;
pub mod tls;

pub use opts::TOOL;

use archive_format::codec::label::{decode_label, encode_label};
use archive_format::error::pm_err_str;
use archive_format::volume::{load_streamed, Bytes, FileRef};
use archive_format::writer::Part;
use archive_format::OpenOptions;
use logger::{status_text, Failure, Logger};
use opts::Opts;
use std::io::{self, Write};

/// The pieces a file goes in (libpcp's `BUFSIZ`).
const PIECE: usize = 8192;

/// Runs pmlogpush; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    cli_common::shell::run(&TOOL, args, out, err, opts::parse, |o, _, err| {
        main(&o, err)
    })
}

/// `pmlogpush: message` and exit status 1.
struct Stop(String);

fn main(o: &Opts, err: &mut dyn Write) -> io::Result<i32> {
    match push(o, err) {
        Ok(()) => Ok(0),
        Err(Stop(msg)) => {
            writeln!(err, "{}: {msg}", TOOL.name)?;
            Ok(1)
        }
    }
}

fn push(o: &Opts, err: &mut dyn Write) -> Result<(), Stop> {
    // PCP 7's libpcp leaves damaged archives out of a list. Each file is read
    // once, front to back, as it is sent: a compressed one as it decodes, nothing
    // decoded ahead (the server may share the cores)
    let opts = OpenOptions {
        label_only: true,
        no_read_ahead: true,
        ..OpenOptions::default()
    };
    let archive = cli_common::context::open_with(TOOL.name, &o.archive, true, opts, err)
        .map_err(|e| Stop(format!("Cannot open archive \"{}\": {e}", o.archive)))?;
    if archive.is_multi() {
        return Err(Stop("multi-archive contexts not supported".into()));
    }
    let credentials = credentials(o)?;
    let files = archive.files();
    // the first data volume's label, as the archive read it, encoded again as
    // libpcp encodes it
    let label = encode_label(archive.label());
    let mut logger = Logger::new(
        &o.conn(),
        &format!("{}/{}", TOOL.name, cli_common::about::PCP7_VERSION),
    )
    .ok_or_else(|| {
        Stop(format!(
            "{} /logger/label POST failed: Invalid argument",
            o.conn()
        ))
    })?;
    if let Some((user, password)) = &credentials {
        logger.set_credentials(user, password);
    }
    let id = push_label(&mut logger, o, &label, err)?;
    let start = label.len();
    let mut sender = Sender {
        logger: &mut logger,
        id,
        verbose: o.verbose,
        err,
    };
    if let Some(meta) = &files.meta {
        sender.file("meta", Part::Meta, meta, start)?;
    }
    if let Some(index) = &files.index {
        sender.file("index", Part::Index, index, start)?;
    }
    for (vol, fr) in &files.volumes {
        sender.file(&format!("volume/{vol}"), Part::Volume(*vol), fr, start)?;
    }
    Ok(())
}

/// `-U` wants `-S`, no `-s`, and a password (`-P`'s file or `$PCP_PUSH_PASSWORD`):
/// the user and password.
fn credentials(o: &Opts) -> Result<Option<(String, String)>, Stop> {
    let Some(user) = &o.username else {
        return Ok(None);
    };
    if o.unix.is_some() {
        return Err(Stop(
            "authentication (-U) is not supported over a Unix domain socket (-s)".into(),
        ));
    }
    if !o.secure {
        return Err(Stop(
            "authentication (-U) requires a secure (-S) connection".into(),
        ));
    }
    let password = logger::password(o.password_file.as_deref()).map_err(Stop)?;
    match password {
        Some(p) => Ok(Some((user.clone(), p))),
        None => Err(Stop(format!(
            "no password for user \"{user}\" - set $PCP_PUSH_PASSWORD or use -P/--password-file"
        ))),
    }
}

/// A file's bytes, to be read once from the start: a compressed file's as they
/// decode, a piece at a time in memory, where it declares its decoded size.
fn open_file(fr: &FileRef) -> archive_format::Result<Bytes> {
    load_streamed(fr, Box::new(|_: &[u8]| {}))
}

/// `POST /logger/label`; the archive's id.
fn push_label(
    logger: &mut Logger,
    o: &Opts,
    label: &[u8],
    err: &mut dyn Write,
) -> Result<u32, Stop> {
    let path = "/logger/label";
    if o.verbose {
        let (version, host) = match decode_label(label) {
            Ok(l) => (l.version, l.hostname),
            Err(_) => (0, String::new()),
        };
        let n = label.len();
        let _ = writeln!(
            err,
            "HTTP POST v{version} label log from host {host} [{n} bytes]"
        );
    }
    let body = logger.label(label).map_err(|f| match f {
        Failure::Io(e) => Stop(format!(
            "{} {path} POST failed: {}",
            logger.conn,
            Failure::io_text(&e)
        )),
        Failure::Status(code) => Stop(format!("HTTP error: {}", status_text(code, false))),
        Failure::Type(t) => Stop(format!(
            "{path} unexpected response type: {t} ({})",
            t.len()
        )),
        Failure::Short | Failure::Result(_) => Stop(format!("{path} unexpected body size")),
    })?;
    if body.len() < 10 {
        return Err(Stop(format!("{path} unexpected body size")));
    }
    if o.verbose {
        let _ = writeln!(err, "pushLabel: label POST result: {body}");
    }
    logger::archive_id(&body).ok_or_else(|| {
        let got = i32::from(body.starts_with("{\"archive\":") && scans_number(&body));
        Stop(format!(
            "{path} bad result (expected 1 archive, got {got}): {body}"
        ))
    })
}

/// Whether `%u` would scan a number after `{"archive":` (then sscanf counted 1).
fn scans_number(body: &str) -> bool {
    let rest = body["{\"archive\":".len()..].trim_start();
    let rest = rest.strip_prefix(['+', '-']).unwrap_or(rest);
    rest.starts_with(|c: char| c.is_ascii_digit())
}

/// Sends files of one archive.
struct Sender<'a> {
    logger: &'a mut Logger,
    id: u32,
    verbose: bool,
    err: &'a mut dyn Write,
}

impl Sender<'_> {
    /// The bytes of one file from `start`, in pieces.
    fn file(&mut self, endpoint: &str, part: Part, fr: &FileRef, start: usize) -> Result<(), Stop> {
        let failed = |e: archive_format::Error| {
            Stop(format!(
                "{endpoint} read failed: {}",
                pm_err_str(e.pm_err())
            ))
        };
        let bytes = open_file(fr).map_err(failed)?;
        let path = logger::path(self.id, part);
        let conn = self.logger.conn.clone();
        let mut buf = [0u8; PIECE];
        let (mut at, end) = (start as u64, bytes.size());
        let mut n = 0;
        while at < end {
            let piece = &mut buf[..(end - at).min(PIECE as u64) as usize];
            bytes
                .read_at(at, piece)
                .map_err(|e| failed(archive_format::Error::io(&fr.path, &e)))?;
            at += piece.len() as u64;
            n += 1;
            let piece = &*piece;
            if self.verbose {
                let (id, len) = (self.id, piece.len());
                let _ = writeln!(self.err, "HTTP {endpoint} POST (archive={id}, {len} bytes)");
            }
            let body = self
                .logger
                .write(self.id, part, piece)
                .map_err(|f| match f {
                    Failure::Io(e) => Stop(format!(
                        "{conn} {path} POST failed: {}",
                        Failure::io_text(&e)
                    )),
                    Failure::Status(code) => {
                        Stop(format!("{path} HTTP error: {}", status_text(code, false)))
                    }
                    Failure::Type(t) => Stop(format!(
                        "{path} unexpected response type: {t} ({})",
                        t.len()
                    )),
                    Failure::Short | Failure::Result(_) => {
                        Stop(format!("{path} unexpected short result"))
                    }
                })?;
            if self.verbose {
                let _ = writeln!(self.err, "pushFile: {endpoint} POST [{n}] result: {body}");
            }
        }
        Ok(())
    }
}
