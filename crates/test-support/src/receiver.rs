//! A stand-in for pmproxy's `/logger` servlet in tests of the push: it stores each
//! pushed archive as pmproxy does (the labels of `.meta` and `.index` written from
//! the label posted, a data volume's label when its first bytes come, then the bytes
//! as they come), and can be told to refuse the label or a write, or to answer the
//! label late.

use archive_format::codec::label::{decode_label, encode_label, VOL_INDEX, VOL_META};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// What the receiver does with the requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Stores what comes, as pmproxy does.
    Store,
    /// Answers the label with this status.
    RefuseLabel(u16),
    /// Answers writes with this status from the Nth data-volume write on.
    RefuseWrite(u16, usize),
    /// Stores what comes, answering the label only after this long.
    LateLabel(std::time::Duration),
}

/// The files of the archives stored, by name (`ID.meta`, `ID.index`, `ID.N`), and
/// each request's method and path.
#[derive(Debug, Default)]
pub struct Stored {
    pub files: BTreeMap<String, Vec<u8>>,
    pub requests: Vec<String>,
    label: Option<archive_format::codec::label::Label>,
    volumes: usize,
}

/// A receiver on a free loopback port, serving until the test ends.
pub struct Receiver {
    pub url: String,
    pub stored: Arc<Mutex<Stored>>,
}

impl Receiver {
    pub fn start(mode: Mode) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!(
            "http://127.0.0.1:{}",
            listener.local_addr().expect("addr").port()
        );
        let stored = Arc::new(Mutex::new(Stored::default()));
        let shared = stored.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let shared = shared.clone();
                std::thread::spawn(move || serve(conn, mode, &shared));
            }
        });
        Receiver { url, stored }
    }

    /// The files stored so far.
    pub fn files(&self) -> BTreeMap<String, Vec<u8>> {
        self.stored.lock().expect("lock").files.clone()
    }

    pub fn requests(&self) -> Vec<String> {
        self.stored.lock().expect("lock").requests.clone()
    }
}

fn serve(conn: TcpStream, mode: Mode, stored: &Mutex<Stored>) {
    let mut r = BufReader::new(conn);
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0usize;
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            if h.trim().is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        let mut words = line.split_whitespace();
        let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        let (status, reply) = answer(mode, method, path, &body, stored);
        let text = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{reply}",
            reply.len()
        );
        if r.get_mut().write_all(text.as_bytes()).is_err() {
            return;
        }
    }
}

fn answer(mode: Mode, method: &str, path: &str, body: &[u8], s: &Mutex<Stored>) -> (u16, String) {
    if let Mode::LateLabel(after) = mode {
        if path.ends_with("/label") {
            std::thread::sleep(after);
        }
    }
    let ok = "{\"success\":true}\r\n".to_string();
    let mut s = s.lock().expect("lock");
    s.requests.push(format!("{method} {path}"));
    let parts: Vec<&str> = path.trim_start_matches("/logger/").split('/').collect();
    match parts.as_slice() {
        ["ping"] => (200, ok),
        ["label"] => {
            if let Mode::RefuseLabel(code) = mode {
                return (code, "{\"success\":false}\r\n".into());
            }
            let Ok(mut label) = decode_label(body) else {
                return (422, "{\"success\":false}\r\n".into());
            };
            label.vol = VOL_META;
            s.files.insert("1.meta".into(), encode_label(&label));
            label.vol = VOL_INDEX;
            s.files.insert("1.index".into(), encode_label(&label));
            s.label = Some(label);
            (200, "{\"archive\":1,\"success\":true}\r\n".into())
        }
        ["meta", "1"] | ["index", "1"] => {
            let name = format!("1.{}", parts[0]);
            s.files.entry(name).or_default().extend_from_slice(body);
            (200, ok)
        }
        ["volume", vol, "1"] => {
            s.volumes += 1;
            if let Mode::RefuseWrite(code, n) = mode {
                if s.volumes >= n {
                    return (code, "{\"success\":false}\r\n".into());
                }
            }
            let name = format!("1.{vol}");
            if !s.files.contains_key(&name) {
                let Some(mut label) = s.label.clone() else {
                    return (400, "{\"success\":false}\r\n".into());
                };
                label.vol = vol.parse().unwrap_or(0);
                s.files.insert(name.clone(), encode_label(&label));
            }
            s.files.entry(name).or_default().extend_from_slice(body);
            (200, ok)
        }
        _ => (400, "{\"success\":false}\r\n".into()),
    }
}

/// Writes the stored files into `dir`; the archive's base name there.
pub fn write_archive(files: &BTreeMap<String, Vec<u8>>, dir: &std::path::Path) -> String {
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).expect("write");
    }
    dir.join("1").to_string_lossy().into_owned()
}
