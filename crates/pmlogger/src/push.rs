//! Recording to pmproxy instead of files, as PCP 7's pmlogger does when its archive
//! is `http://host:port`: `/logger/ping` before anything is recorded, the label
//! when the first record is written, then each record of each file as it is
//! written. A failed label ends the run ("failed to start"), a failed write too
//! ("lost pmproxy ... connection"); both exit 0, as PCP's. After a failure
//! nothing more is sent (the epilogue goes nowhere).

use archive_format::writer::{Part, Push};
use pmlogpush::logger::{archive_id, status_text, Failure, Logger};
use std::io::Write;
use std::sync::{Arc, Mutex};

use crate::recording::ctime_now;
use crate::startup::{info, notice};
use crate::PROG;

/// Whether an archive name is a push target.
pub(crate) fn is_remote(archive: &str) -> bool {
    archive.starts_with("http://") || archive.starts_with("https://")
}

/// `--push-user`'s credentials: it wants `https://` and a password (its file's
/// or `$PCP_PUSH_PASSWORD`); PCP's message where not.
fn credentials(
    conn: &str,
    user: Option<&str>,
    file: Option<&str>,
) -> Result<Option<(String, String)>, String> {
    let Some(user) = user else {
        return Ok(None);
    };
    if !conn.starts_with("https://") {
        return Err("--push-user requires a secure (https://) connection".into());
    }
    match pmlogpush::logger::password(file)? {
        Some(p) => Ok(Some((user.to_string(), p))),
        None => Err(format!(
            "no password for user \"{user}\" - set $PCP_PUSH_PASSWORD or use --push-password-file"
        )),
    }
}

/// How a push ended early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The label was refused: nothing was recorded.
    NotStarted,
    /// A write failed, at this time (ctime).
    Lost(String),
}

/// What the recording and its receiver share: how the push ended, if it did.
#[derive(Clone)]
pub(crate) struct Status {
    ended: Arc<Mutex<Option<Ended>>>,
    /// The connection as the command line gave it.
    conn: Arc<str>,
}

impl Status {
    fn set(&self, e: Ended) {
        if let Ok(mut s) = self.ended.lock() {
            s.get_or_insert(e);
        }
    }

    fn get(&self) -> Option<Ended> {
        self.ended.lock().ok().and_then(|s| s.clone())
    }

    /// After a write failed: when the push ended it, its messages and exit status
    /// 0; `None` when the failure was another (the caller says it).
    pub(crate) fn ended(&self, log: &mut dyn Write) -> Option<i32> {
        match self.get()? {
            Ended::NotStarted => {
                info(
                    log,
                    &format!("{PROG}: Remote push recording failed to start, exiting"),
                );
            }
            Ended::Lost(when) => {
                let conn = &self.conn;
                let _ = writeln!(log, "{PROG}: lost pmproxy {conn} connection at {when}");
                info(
                    log,
                    &format!("{PROG}: Remote push recording terminated, exiting"),
                );
            }
        }
        Some(0)
    }
}

/// The receiver of a pushed recording.
pub(crate) struct Remote {
    logger: Logger,
    /// The archive's id once the label was taken; `None` before, and after a
    /// failure (then records go nowhere).
    id: Option<u32>,
    status: Status,
}

/// `User-Agent` of the requests.
fn agent() -> String {
    format!("{PROG}/{}", cli_common::about::PCP7_VERSION)
}

impl Remote {
    /// Pings `conn` (as `user`, with the password of `password_file`); on failure
    /// says why, as PCP's pmlogger does (exit status 1).
    pub(crate) fn connect(
        conn: &str,
        user: Option<&str>,
        password_file: Option<&str>,
        log: &mut dyn Write,
    ) -> Result<(Remote, Status), i32> {
        let credentials = credentials(conn, user, password_file).map_err(|msg| {
            let _ = writeln!(log, "{PROG}: {msg}");
            1
        })?;
        let path = "/logger/ping";
        let Some(mut logger) = Logger::new(conn, &agent()) else {
            notice(
                log,
                "Error",
                &format!("{path} check for {conn} failed: Invalid argument"),
            );
            return Err(1);
        };
        if let Some((user, password)) = &credentials {
            logger.set_credentials(user, password);
        }
        if let Err(f) = logger.ping() {
            let why = match f {
                Failure::Io(e) => format!("failed: {}", Failure::io_text(&e)),
                Failure::Status(code) => format!("HTTP error: {}", status_text(code, true)),
                Failure::Type(t) => format!("got unexpected type: {t}"),
                Failure::Result(body) => format!("got bad result: {body}"),
                Failure::Short => "got bad result: ".to_string(),
            };
            notice(log, "Error", &format!("{path} check for {conn} {why}"));
            return Err(1);
        }
        let status = Status {
            ended: Arc::default(),
            conn: conn.into(),
        };
        let remote = Remote {
            logger,
            id: None,
            status: status.clone(),
        };
        Ok((remote, status))
    }
}

fn refused(what: &str) -> std::io::Error {
    std::io::Error::other(format!("remote push: {what}"))
}

impl Push for Remote {
    fn label(&mut self, label: &[u8]) -> std::io::Result<()> {
        let id = self.logger.label(label).ok().and_then(|b| archive_id(&b));
        match id {
            Some(id) => {
                self.id = Some(id);
                Ok(())
            }
            None => {
                self.status.set(Ended::NotStarted);
                Err(refused("label not taken"))
            }
        }
    }

    fn record(&mut self, part: Part, bytes: &[u8]) -> std::io::Result<()> {
        let Some(id) = self.id else {
            return Ok(());
        };
        match self.logger.write(id, part, bytes) {
            Ok(_) => Ok(()),
            Err(_) => {
                self.id = None;
                self.status.set(Ended::Lost(ctime_now()));
                Err(refused("write failed"))
            }
        }
    }
}
