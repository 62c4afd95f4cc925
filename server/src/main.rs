//! `taskview serve`: serves the built app (`dist/`) with an SPA fallback.

use axum::Router;
use std::net::SocketAddr;
use std::path::PathBuf;
use tower_http::services::{ServeDir, ServeFile};

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let mut addr: SocketAddr = ([127, 0, 0, 1], 8080).into();
    let mut dist = PathBuf::from("dist");
    match args.next().as_deref() {
        Some("serve") => {}
        _ => {
            eprintln!("usage: taskview serve [--addr 127.0.0.1:8080] [--dist DIR]");
            std::process::exit(2);
        }
    }
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_default();
        match flag.as_str() {
            "--addr" => addr = value.parse().expect("--addr takes host:port"),
            "--dist" => dist = value.into(),
            other => {
                eprintln!("unknown flag {other}");
                std::process::exit(2);
            }
        }
    }
    let index = dist.join("index.html");
    let app = Router::new().fallback_service(ServeDir::new(&dist).fallback(ServeFile::new(index)));
    let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
    println!("taskview serving {} on http://{addr}/", dist.display());
    axum::serve(listener, app).await.expect("serve");
}
