//! TLS for pushes to `https://`, set up as PCP 7.2's client sets up its own: the
//! CA certificates named by PCP's TLS configuration (`$PCP_TLSCONF_PATH`, by
//! default `/etc/pcp/tls.conf`: `tls-ca-cert-file`, `tls-ca-cert-dir`) and, when
//! it names both, the client's certificate and key (`tls-cert-file`,
//! `tls-key-file`). The system-wide roots are not used, as PCP does not use them.
//! Whatever goes wrong in the handshake is PCP's one message, "TLS protocol
//! failure".

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What PCP's TLS configuration file says, for a client.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Settings {
    pub ca_file: Option<PathBuf>,
    pub ca_dir: Option<PathBuf>,
    pub cert_file: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
}

impl Settings {
    /// `key = value` lines (`#` starts a comment); other keys are the server's.
    pub fn parse(text: &str) -> Settings {
        let mut s = Settings::default();
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or_default();
            let Some((k, v)) = line.split_once('=') else {
                continue;
            };
            let v = Some(PathBuf::from(v.trim()));
            match k.trim() {
                "tls-ca-cert-file" => s.ca_file = v,
                "tls-ca-cert-dir" => s.ca_dir = v,
                "tls-cert-file" => s.cert_file = v,
                "tls-key-file" => s.key_file = v,
                _ => {}
            }
        }
        s
    }

    /// The configuration PCP's tools read (none when the file is missing).
    pub fn load() -> Settings {
        let path = cli_common::pcpconf::setting("PCP_TLSCONF_PATH")
            .unwrap_or_else(|| "/etc/pcp/tls.conf".into());
        std::fs::read_to_string(path)
            .map(|t| Settings::parse(&t))
            .unwrap_or_default()
    }
}

/// PCP's words for every failure of the secure connection.
pub fn failure() -> std::io::Error {
    std::io::Error::other("TLS protocol failure")
}

/// The client configuration `s` describes.
pub fn client_config(s: &Settings) -> std::io::Result<Arc<ClientConfig>> {
    let mut roots = RootCertStore::empty();
    let mut files: Vec<PathBuf> = s.ca_file.iter().cloned().collect();
    if let Some(dir) = &s.ca_dir {
        if let Ok(entries) = std::fs::read_dir(dir) {
            let mut more: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            more.sort();
            files.extend(more);
        }
    }
    for f in &files {
        for cert in certificates(f) {
            // (a certificate that is not a CA's is passed over, as OpenSSL does)
            let _ = roots.add(cert);
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|_| failure())?
        .with_root_certificates(roots);
    let config = match (&s.cert_file, &s.key_file) {
        (Some(c), Some(k)) => {
            let key = PrivateKeyDer::from_pem_file(k).map_err(|_| failure())?;
            builder
                .with_client_auth_cert(certificates(c), key)
                .map_err(|_| failure())?
        }
        _ => builder.with_no_client_auth(),
    };
    Ok(Arc::new(config))
}

/// The certificates of a PEM file (none when it cannot be read).
fn certificates(path: &Path) -> Vec<CertificateDer<'static>> {
    match CertificateDer::pem_file_iter(path) {
        Ok(it) => it.flatten().collect(),
        Err(_) => Vec::new(),
    }
}

/// A secure connection over `tcp` to `host`, its handshake done.
pub fn connect(
    tcp: TcpStream,
    host: &str,
    config: Arc<ClientConfig>,
) -> std::io::Result<StreamOwned<ClientConnection, TcpStream>> {
    let name = ServerName::try_from(host.to_string()).map_err(|_| failure())?;
    let conn = ClientConnection::new(config, name).map_err(|_| failure())?;
    let mut stream = StreamOwned::new(conn, tcp);
    while stream.conn.is_handshaking() {
        stream
            .conn
            .complete_io(&mut stream.sock)
            .map_err(|_| failure())?;
    }
    Ok(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_settings_of_pcp_tls_conf() {
        let s = Settings::parse(
            "# a comment\n tls-ca-cert-file = /a/ca.crt\n#tls-ca-cert-dir = /x\n\
             tls-cert-file=/a/c.crt # mine\ntls-key-file = /a/c.key\ntls-ciphers = DEFAULT\n",
        );
        assert_eq!(s.ca_file, Some(PathBuf::from("/a/ca.crt")));
        assert_eq!(s.ca_dir, None);
        assert_eq!(s.cert_file, Some(PathBuf::from("/a/c.crt")));
        assert_eq!(s.key_file, Some(PathBuf::from("/a/c.key")));
    }
}
