//! TLS to the team store on a real PostgreSQL (docs/team-store.md "TLS to
//! the database"): a cluster started with `ssl=on` and a certificate made
//! here, for `localhost`, signed by a root made here, that refuses TCP
//! connections without TLS. `sslmode=require` and the default (`prefer`)
//! are really encrypted (the server's `pg_stat_ssl` says so); `verify-full`
//! takes the right host name and refuses another; `verify-ca` takes any
//! name but not another root; `sslmode=disable` is refused with an error
//! that says why and shows no password. A binary of its own: its cluster
//! is not the other tests'.

mod common;

use common::postgres::{texts, tls_cluster, Postgres, ServerCertificate, PASSWORD};
use common::team::reader;
use common::*;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use std::sync::OnceLock;

/// A root certificate and its issuer (to sign a server's with).
fn root(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap()
}

/// The root the cluster's certificate is signed by, PEM.
static ROOT_PEM: OnceLock<String> = OnceLock::new();

/// The cluster, its certificate for `localhost` signed by a root made now.
fn cluster() -> &'static Postgres {
    tls_cluster(|| {
        let root = root("taskview test root");
        let key = KeyPair::generate().unwrap();
        let params = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
        let cert = params.signed_by(&key, &root).unwrap();
        ROOT_PEM.set(root.pem()).unwrap();
        ServerCertificate {
            cert: cert.pem(),
            key: key.serialize_pem(),
        }
    })
}

/// The database's name in its URL.
fn name_of(url: &str) -> &str {
    url.rsplit('/').next().unwrap()
}

/// Whether every connection taskview holds to the database is encrypted
/// (and there is one).
async fn encrypted(socket: &str, database: &str) -> bool {
    let query = format!(
        "SELECT s.ssl::TEXT FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
         WHERE a.application_name = 'taskview' AND a.datname = '{database}'"
    );
    let said = texts(socket, &query).await;
    !said.is_empty() && said.iter().all(|s| s == "true")
}

/// Why a reader of `url` does not start.
async fn refusal(url: &str) -> String {
    match taskview_server::serve(reader(url)).await {
        Ok(_) => panic!("{url}: the server should not start"),
        Err(e) => format!("{e:#}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_sslmode_secures_or_refuses_the_connection_as_libpq_does() {
    let pg = cluster();
    let url = pg.database();
    let socket = pg.socket_url(name_of(&url));
    let database = name_of(&url).to_string();
    let roots = TempDir::new("store-tls");
    roots.write("root.pem", ROOT_PEM.get().unwrap());
    roots.write("other.pem", root("another root").pem());
    let root_file = roots.0.join("root.pem").display().to_string();
    let other_file = roots.0.join("other.pem").display().to_string();
    let on_localhost = url.replace("127.0.0.1", "localhost");

    for (taken, why) in [
        (format!("{url}?sslmode=require"), "require"),
        (url.clone(), "prefer, the default"),
        (
            format!("{on_localhost}?sslmode=verify-full&sslrootcert={root_file}"),
            "verify-full with the certificate's host name",
        ),
        (
            format!("{url}?sslmode=verify-ca&sslrootcert={root_file}"),
            "verify-ca, whatever the host name",
        ),
    ] {
        let team = taskview_server::serve(reader(&taken))
            .await
            .unwrap_or_else(|e| panic!("{why}: {e:#}"));
        assert!(encrypted(&socket, &database).await, "{why}: encrypted");
        team.shutdown().await.unwrap();
    }

    let wrong_name = refusal(&format!(
        "{url}?sslmode=verify-full&sslrootcert={root_file}"
    ))
    .await;
    assert!(
        wrong_name.contains("certificate") && wrong_name.contains("127.0.0.1"),
        "verify-full refuses a certificate for another name: {wrong_name}"
    );
    let wrong_root = refusal(&format!("{url}?sslmode=verify-ca&sslrootcert={other_file}")).await;
    assert!(
        wrong_root.contains("certificate"),
        "verify-ca refuses a certificate of another root: {wrong_root}"
    );
    let plain = refusal(&format!("{url}?sslmode=disable")).await;
    assert!(
        plain.contains("accepts only encrypted connections"),
        "sslmode=disable is told why: {plain}"
    );
    for said in [&wrong_name, &wrong_root, &plain] {
        eprintln!("refused: {said}");
        assert!(!said.contains(PASSWORD), "no password: {said}");
    }
}
