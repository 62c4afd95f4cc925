//! TLS to the store (docs/team-store.md "TLS to the database"): libpq's
//! `sslmode` (`disable`, `prefer` by default, `require`, `verify-ca`,
//! `verify-full`) and `sslrootcert` (a PEM file, or `system` for the
//! machine's roots), read from the address, with rustls. The PostgreSQL
//! client reads neither the verifying modes nor the root file, so both are
//! taken out of the address here and the rest handed to it.
//!
//! As libpq: `prefer` and `require` encrypt without checking whose
//! certificate it is (unless a root file is named: then `require` checks
//! it as `verify-ca` does); `verify-ca` checks the chain up to a trusted
//! root; `verify-full` checks the host name too.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use std::path::PathBuf;
use std::sync::Arc;
use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;

/// How the connection is secured (`sslmode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Mode {
    Disable,
    #[default]
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// Where the trusted roots come from (`sslrootcert`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Roots {
    /// A PEM file of one or more certificates.
    File(PathBuf),
    /// The machine's own store of roots (`sslrootcert=system`).
    System,
}

/// The address's TLS settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Tls {
    pub(super) mode: Mode,
    pub(super) roots: Option<Roots>,
}

/// What stops a TLS setting from being used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// An `sslmode` this client does not have.
    #[error("sslmode={0} is not one of disable, prefer, require, verify-ca, verify-full")]
    UnknownMode(String),
    /// The root certificates could not be read.
    #[error("cannot read the store's root certificates {path}: {detail}")]
    Roots { path: String, detail: String },
    /// The machine's store of roots holds none.
    #[error("the machine's root certificates could not be loaded: {0}")]
    SystemRoots(String),
}

impl Tls {
    /// Reads one `key=value` of the address when it is a TLS setting;
    /// false for any other key.
    pub(super) fn take(&mut self, key: &str, value: &str) -> Result<bool, TlsError> {
        match key {
            "sslmode" => {
                self.mode = match value {
                    "disable" => Mode::Disable,
                    "prefer" => Mode::Prefer,
                    "require" => Mode::Require,
                    "verify-ca" => Mode::VerifyCa,
                    "verify-full" => Mode::VerifyFull,
                    other => return Err(TlsError::UnknownMode(other.to_string())),
                };
            }
            "sslrootcert" => {
                self.roots = Some(match value {
                    "system" => Roots::System,
                    path => Roots::File(PathBuf::from(path)),
                });
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// What the PostgreSQL client is told: no TLS, TLS if the server has
    /// it, or TLS or nothing.
    pub(super) fn client_mode(&self) -> SslMode {
        match self.mode {
            Mode::Disable => SslMode::Disable,
            Mode::Prefer => SslMode::Prefer,
            Mode::Require | Mode::VerifyCa | Mode::VerifyFull => SslMode::Require,
        }
    }

    /// The connector that checks the server's certificate as the mode says.
    pub(super) fn connector(&self) -> Result<MakeRustlsConnect, TlsError> {
        // ring (a small C build) rather than aws-lc-rs (a large one): rustls
        // deprecates ring's provider only for lacking post-quantum key exchange.
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let checks_chain = match self.mode {
            Mode::VerifyCa | Mode::VerifyFull => true,
            Mode::Require => self.roots.is_some(),
            Mode::Disable | Mode::Prefer => false,
        };
        let verifier: Arc<dyn ServerCertVerifier> = if checks_chain {
            let roots = Arc::new(self.root_store()?);
            let webpki = WebPkiServerVerifier::builder_with_provider(roots, Arc::clone(&provider))
                .build()
                .map_err(|e| TlsError::SystemRoots(e.to_string()))?;
            if self.mode == Mode::VerifyFull {
                webpki
            } else {
                Arc::new(AnyName(webpki))
            }
        } else {
            Arc::new(Unchecked(Arc::clone(&provider)))
        };
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("ring's provider has the default protocol versions")
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        Ok(MakeRustlsConnect::new(config))
    }

    /// The trusted roots: the named file, the machine's, or (as libpq)
    /// `~/.postgresql/root.crt` when it exists, else the machine's.
    fn root_store(&self) -> Result<RootCertStore, TlsError> {
        let default_file = std::env::var_os("HOME")
            .map(|home| PathBuf::from(home).join(".postgresql/root.crt"))
            .filter(|file| file.is_file());
        let roots = match (&self.roots, default_file) {
            (Some(roots), _) => roots.clone(),
            (None, Some(file)) => Roots::File(file),
            (None, None) => Roots::System,
        };
        let mut store = RootCertStore::empty();
        match roots {
            Roots::File(path) => {
                let unreadable = |detail: String| TlsError::Roots {
                    path: path.display().to_string(),
                    detail,
                };
                let certs = CertificateDer::pem_file_iter(&path)
                    .map_err(|e| unreadable(e.to_string()))?
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| unreadable(e.to_string()))?;
                let (added, _) = store.add_parsable_certificates(certs);
                if added == 0 {
                    return Err(unreadable("no certificate in it".into()));
                }
            }
            Roots::System => {
                let found = rustls_native_certs::load_native_certs();
                let (added, _) = store.add_parsable_certificates(found.certs);
                if added == 0 {
                    let errors: Vec<String> = found.errors.iter().map(|e| e.to_string()).collect();
                    return Err(TlsError::SystemRoots(errors.join("; ")));
                }
            }
        }
        Ok(store)
    }
}

/// `verify-ca`: the chain must reach a trusted root; the name is not checked.
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let checked =
            self.0
                .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now);
        // The chain is checked before the name: a wrong name means a good chain.
        match checked {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer` and `require`: encrypted, whoever's certificate it is (the
/// handshake's signatures are still checked).
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_is_read_and_an_unknown_one_refused() {
        let mut tls = Tls::default();
        assert_eq!(tls.mode, Mode::Prefer, "libpq's default");
        assert_eq!(tls.client_mode(), SslMode::Prefer);
        for (text, mode, client) in [
            ("disable", Mode::Disable, SslMode::Disable),
            ("require", Mode::Require, SslMode::Require),
            ("verify-ca", Mode::VerifyCa, SslMode::Require),
            ("verify-full", Mode::VerifyFull, SslMode::Require),
        ] {
            assert!(tls.take("sslmode", text).unwrap());
            assert_eq!((tls.mode, tls.client_mode()), (mode, client));
        }
        assert!(tls.take("sslrootcert", "system").unwrap());
        assert_eq!(tls.roots, Some(Roots::System));
        assert!(!tls.take("dbname", "team").unwrap());
        let refused = tls.take("sslmode", "allow").unwrap_err().to_string();
        assert!(refused.contains("sslmode=allow"), "{refused}");
    }

    #[test]
    fn a_root_file_that_is_not_there_is_said_by_its_name() {
        let tls = Tls {
            mode: Mode::VerifyFull,
            roots: Some(Roots::File("/nowhere/root.crt".into())),
        };
        let refused = tls.connector().err().expect("refused").to_string();
        assert!(refused.contains("/nowhere/root.crt"), "{refused}");
    }
}
