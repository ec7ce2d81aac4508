//! TLS for the relay's own listener (`--tls-cert`, `--tls-key`): the certificate chain and
//! key read from PEM files into a rustls server configuration (ring provider; TLS 1.2 and 1.3;
//! HTTP/1.1 offered by ALPN, the only HTTP version the relay serves).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls;

/// The PEM files of `--tls-cert` and `--tls-key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, leaf first (PEM `CERTIFICATE` blocks).
    pub cert: PathBuf,
    /// The private key of the leaf (PEM: PKCS#8, PKCS#1 RSA or SEC1 EC).
    pub key: PathBuf,
}

/// Why the TLS files are unusable; says which file and what is accepted.
#[derive(Debug)]
pub enum TlsError {
    /// A file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// The certificate file holds no PEM `CERTIFICATE` block.
    NoCertificate(PathBuf),
    /// The key file holds no PEM private key.
    NoKey(PathBuf),
    /// rustls refused the pair (the key does not match the certificate, an unsupported key).
    Refused(String),
}

impl fmt::Display for TlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TlsError::Read { path, error } => write!(f, "cannot read {}: {error}", path.display()),
            TlsError::NoCertificate(p) => write!(
                f,
                "--tls-cert {}: no certificate in it; accepted: a PEM file of \
                 \"-----BEGIN CERTIFICATE-----\" blocks, leaf first",
                p.display()
            ),
            TlsError::NoKey(p) => write!(
                f,
                "--tls-key {}: no private key in it; accepted: a PEM file with one \
                 PKCS#8, RSA or EC private key",
                p.display()
            ),
            TlsError::Refused(why) => write!(f, "--tls-cert/--tls-key refused: {why}"),
        }
    }
}

impl std::error::Error for TlsError {}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|error| TlsError::Read {
        path: path.to_owned(),
        error,
    })
}

/// Reads `files` into a server configuration for the listener.
pub fn server_config(files: &TlsFiles) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&read(&files.cert)?)
        .filter_map(Result::ok)
        .collect();
    if certs.is_empty() {
        return Err(TlsError::NoCertificate(files.cert.clone()));
    }
    let key = PrivateKeyDer::from_pem_slice(&read(&files.key)?)
        .map_err(|_| TlsError::NoKey(files.key.clone()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Refused(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| TlsError::Refused(e.to_string()))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unusable_files_say_which_and_what_is_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not pem\n").unwrap();
        let missing = dir.path().join("missing.pem");
        let e = server_config(&TlsFiles {
            cert: missing.clone(),
            key: empty.clone(),
        })
        .unwrap_err();
        assert!(e.to_string().contains("missing.pem"), "{e}");
        let e = server_config(&TlsFiles {
            cert: empty.clone(),
            key: empty.clone(),
        })
        .unwrap_err();
        assert!(matches!(e, TlsError::NoCertificate(_)), "{e}");
        assert!(e.to_string().contains("BEGIN CERTIFICATE"), "{e}");
    }
}
