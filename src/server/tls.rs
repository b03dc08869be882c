//! HTTPS at the origin: the certificate and key files, read into a rustls
//! configuration (TLS 1.2 and 1.3 only, ALPN `h2` and `http/1.1`), and
//! read again on demand (SIGHUP) without a restart.
//!
//! - [`Tls::load`] reads both files; an error names the file and what is
//!   wrong with it (missing, unreadable, not PEM, a key that does not match
//!   the certificate), and the server does not start.
//! - [`Tls::reload`] reads them again: new connections get the new
//!   certificate, open ones keep theirs, and a bad file leaves the last good
//!   certificate in place.
//! - `Tls::acceptor` is what each new connection handshakes with.
//!
//! A client that speaks cleartext HTTP to the TLS port gets
//! `plain_http_answer` and the connection is closed.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ServerConfig;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use tokio_rustls::TlsAcceptor;

/// The certificate chain and private key files (PEM).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, leaf first.
    pub cert: PathBuf,
    /// The private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
}

/// `Strict-Transport-Security` on every HTTPS response: a year, the
/// lifetime browsers and preload lists expect; subdomains are left to the
/// operator, who knows whether they all speak HTTPS.
pub(crate) const HSTS: http::HeaderValue = http::HeaderValue::from_static("max-age=31536000");

/// The TLS configuration in use, and the files it came from.
pub struct Tls {
    /// The files it reads.
    pub files: TlsFiles,
    current: RwLock<TlsAcceptor>,
}

impl Tls {
    /// Read both files into a configuration.
    pub fn load(files: TlsFiles) -> Result<Tls, String> {
        let acceptor = acceptor(&files)?;
        Ok(Tls {
            files,
            current: RwLock::new(acceptor),
        })
    }

    /// Read both files again; on success new connections use them. On
    /// error the last good configuration stays and the error says why.
    pub fn reload(&self) -> Result<(), String> {
        let acceptor = acceptor(&self.files)?;
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = acceptor;
        Ok(())
    }

    /// The configuration for a new connection.
    pub(crate) fn acceptor(&self) -> TlsAcceptor {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// A TLS acceptor for the certificate and key in `files`.
fn acceptor(files: &TlsFiles) -> Result<TlsAcceptor, String> {
    let chain = certificates(&files.cert)?;
    let key = private_key(&files.key)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(|error| format!("TLS: {error}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|error| match error {
            rustls::Error::InconsistentKeys(_) => format!(
                "{}: the key does not match the certificate in {}",
                files.key.display(),
                files.cert.display()
            ),
            other => format!("{}: unusable key: {other}", files.key.display()),
        })?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// The certificates of a PEM file, leaf first.
fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let pem = read(path, "certificate")?;
    let chain = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| format!("{}: not a PEM certificate file: {error}", path.display()))?;
    if chain.is_empty() {
        return Err(format!(
            "{}: no certificate in it (a PEM file with -----BEGIN CERTIFICATE----- is expected)",
            path.display()
        ));
    }
    Ok(chain)
}

/// The private key of a PEM file.
fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>, String> {
    let pem = read(path, "key")?;
    PrivateKeyDer::from_pem_slice(&pem).map_err(|error| match error {
        rustls::pki_types::pem::Error::NoItemsFound => format!(
            "{}: no private key in it (a PEM file with -----BEGIN PRIVATE KEY----- is expected)",
            path.display()
        ),
        other => format!("{}: not a PEM key file: {other}", path.display()),
    })
}

/// The bytes of one of the two files.
fn read(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => format!("{}: no such {what} file", path.display()),
        _ => format!("{}: cannot read the {what} file: {error}", path.display()),
    })
}

/// Whether the first byte a client sent opens a TLS handshake record
/// (content type 22); cleartext HTTP starts with a method's letter.
pub(crate) fn opens_handshake(first: u8) -> bool {
    first == 0x16
}

/// The ErrorResponse a cleartext HTTP request on the TLS port gets.
const PLAIN_HTTP_ERROR: &str = "{\"error\":{\"code\":\"plain_http_on_tls_port\",\
\"message\":\"This port speaks HTTPS only; the request came in cleartext HTTP.\",\
\"hint\":\"Send it again to the same host and port with https://.\"}}";

/// What a cleartext HTTP request on the TLS port gets before the
/// connection is closed: 400 with [`PLAIN_HTTP_ERROR`].
pub(crate) fn plain_http_answer() -> &'static [u8] {
    static ANSWER: std::sync::LazyLock<Vec<u8>> = std::sync::LazyLock::new(|| {
        format!(
            "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n\
             content-length: {}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n{}",
            PLAIN_HTTP_ERROR.len(),
            PLAIN_HTTP_ERROR
        )
        .into_bytes()
    });
    &ANSWER
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_http_answer_is_a_complete_error_response() {
        let text = std::str::from_utf8(plain_http_answer()).expect("ASCII");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length: "))
            .expect("a length")
            .parse()
            .expect("a number");
        assert_eq!(length, body.len());
        let error: serde_json::Value = serde_json::from_str(body).expect("JSON");
        assert_eq!(error["error"]["code"], "plain_http_on_tls_port");
        assert!(error["error"]["message"].is_string() && error["error"]["hint"].is_string());
    }

    #[test]
    fn only_a_handshake_record_opens_tls() {
        assert!(opens_handshake(0x16));
        for first in [b'G', b'H', b'P', b'O', 0x15, 0x17, 0] {
            assert!(!opens_handshake(first), "{first}");
        }
    }

    #[test]
    fn missing_files_are_named() {
        let files = TlsFiles {
            cert: "no/such/cert.pem".into(),
            key: "no/such/key.pem".into(),
        };
        let error = Tls::load(files).err().expect("refused");
        assert_eq!(error, "no/such/cert.pem: no such certificate file");
    }
}
