//! Pushes to `https://`: the client trusts the CA certificates PCP's TLS
//! configuration names and no others, checks the server's name against its
//! certificate, and sends HTTP Basic credentials inside the secure connection.

use pmlogpush::http::{Client, Target};
use pmlogpush::tls::{client_config, Settings};
use rcgen::{BasicConstraints, Certificate, CertificateParams, IsCa, KeyPair};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;

/// A CA, and a server certificate it signed for `names`.
struct Pki {
    ca_pem: String,
    server: ServerConfig,
}

fn pki(names: &[&str]) -> Pki {
    let ca_key = KeyPair::generate().expect("ca key");
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("ca params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert: Certificate = ca.self_signed(&ca_key).expect("ca cert");
    let key = KeyPair::generate().expect("server key");
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let params = CertificateParams::new(names).expect("server params");
    let cert = params
        .signed_by(&key, &ca_cert, &ca_key)
        .expect("server cert");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let server = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .expect("server config");
    Pki {
        ca_pem: ca_cert.pem(),
        server,
    }
}

/// A server on a loopback port answering one request as pmproxy's label
/// endpoint; gives the port and what it was sent (an error when the handshake
/// failed).
fn serve_once(config: ServerConfig) -> (u16, JoinHandle<Result<String, String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let handle = std::thread::spawn(move || {
        let (tcp, _) = listener.accept().map_err(|e| e.to_string())?;
        let conn = ServerConnection::new(Arc::new(config)).map_err(|e| e.to_string())?;
        let mut r = BufReader::new(StreamOwned::new(conn, tcp));
        let mut head = String::new();
        loop {
            let mut line = String::new();
            if r.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                return Err("closed".into());
            }
            head.push_str(&line);
            if line == "\r\n" {
                break;
            }
        }
        let length = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .and_then(|n| n.trim().parse::<u64>().ok())
            .unwrap_or(0);
        let mut body = Vec::new();
        (&mut r)
            .take(length)
            .read_to_end(&mut body)
            .map_err(|e| e.to_string())?;
        let reply = "{\"archive\":7,\"success\":true}";
        let s = r.get_mut();
        write!(
            s,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{reply}",
            reply.len()
        )
        .map_err(|e| e.to_string())?;
        s.flush().map_err(|e| e.to_string())?;
        Ok(head)
    });
    (port, handle)
}

fn client(host: &str, port: u16, settings: &Settings) -> Client {
    let target = Target::parse(&format!("https://{host}:{port}")).expect("url");
    let mut c = Client::new(target, "pmlogpush/7.2.2");
    c.set_tls(client_config(settings).expect("client config"));
    c
}

fn trusting(dir: &tempfile::TempDir, pki: &Pki) -> Settings {
    let ca: PathBuf = dir.path().join("ca.crt");
    std::fs::write(&ca, &pki.ca_pem).expect("write ca");
    Settings {
        ca_file: Some(ca),
        ..Settings::default()
    }
}

#[test]
fn a_push_to_a_server_the_configured_ca_signed_carries_its_credentials() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pki = pki(&["127.0.0.1", "localhost"]);
    let settings = trusting(&dir, &pki);
    let (port, server) = serve_once(pki.server);
    let mut c = client("127.0.0.1", port, &settings);
    c.set_credentials("bob", "secret");
    let reply = c
        .post("/logger/label", b"label", "application/octet-stream")
        .expect("post");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, b"{\"archive\":7,\"success\":true}");
    let head = server.join().expect("server thread").expect("request");
    assert!(
        head.starts_with("POST /logger/label HTTP/1.1\r\n"),
        "{head}"
    );
    // "bob:secret" in base64, after the content headers as PCP sends it
    assert!(
        head.ends_with("content-length: 5\r\nAuthorization: Basic Ym9iOnNlY3JldA==\r\n\r\n"),
        "{head}"
    );
}

#[test]
fn without_the_ca_configured_the_server_is_not_trusted() {
    let pki = pki(&["127.0.0.1"]);
    let (port, server) = serve_once(pki.server);
    let mut c = client("127.0.0.1", port, &Settings::default());
    let e = c.get("/logger/ping").expect_err("untrusted server");
    assert_eq!(e.to_string(), "TLS protocol failure");
    assert!(server.join().expect("server thread").is_err());
}

#[test]
fn a_certificate_for_another_name_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pki = pki(&["other.example"]);
    let settings = trusting(&dir, &pki);
    let (port, server) = serve_once(pki.server);
    let mut c = client("127.0.0.1", port, &settings);
    let e = c.get("/logger/ping").expect_err("wrong name");
    assert_eq!(e.to_string(), "TLS protocol failure");
    assert!(server.join().expect("server thread").is_err());
}
