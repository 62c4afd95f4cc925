//! `taskview serve`: parses the command line, starts the server, prints its
//! URL (the first stdout line; `make run` relies on it), and stops
//! gracefully on SIGINT or SIGTERM. `taskview split` and `taskview precompress` are build steps;
//! `taskview export` writes a transcript as one self-contained HTML file.

use clap::Parser;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use taskview_server::access::TokenRule;
use taskview_server::cli::{Cli, Command, ExportArgs, ServeArgs, SplitArgs};

#[tokio::main]
async fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Serve(args) => serve(args).await,
        Command::Precompress { dir } => precompress(&dir),
        Command::Export(args) => export(&args),
        Command::Split(args) => split(args),
    }
}

/// Writes the self-contained page; names it on stdout, then what masking did.
fn export(args: &ExportArgs) -> ExitCode {
    let secrets = if args.no_mask {
        taskview_server::commands::export::Secrets::Keep
    } else {
        taskview_server::commands::export::Secrets::Mask
    };
    match taskview_server::commands::export::export(
        &args.dist,
        &args.input,
        args.session.as_deref(),
        &args.output,
        secrets,
    ) {
        Ok(masked) => {
            println!("{}", args.output.display());
            println!(
                "{}",
                taskview_core::screen::export::secrets_status(masked.as_ref())
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("taskview: cannot export {}: {e}", args.input.display());
            ExitCode::FAILURE
        }
    }
}

/// Splits the app and names its folder on stdout.
fn split(args: SplitArgs) -> ExitCode {
    let tools = taskview_server::commands::split::Tools {
        wasm_bindgen: args.wasm_bindgen,
        wasm_opt: args.wasm_opt,
        opt_args: args.opt_args.split_whitespace().map(String::from).collect(),
    };
    match taskview_server::commands::split::split(&args.wasm, &args.dist, &tools) {
        Ok(folder) => {
            println!("{folder}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("taskview: cannot split {}: {e}", args.wasm.display());
            ExitCode::FAILURE
        }
    }
}

/// Writes the compressed twins and prints one line per file.
fn precompress(dir: &Path) -> ExitCode {
    match taskview_server::commands::precompress::precompress(dir) {
        Ok(files) => {
            let size = |n: Option<usize>| n.map_or("-".to_string(), |n| n.to_string());
            for file in files {
                println!(
                    "{:<44} {:>9} raw {:>9} gzip {:>9} br",
                    file.name,
                    file.raw,
                    size(file.gzip),
                    size(file.brotli)
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("taskview: cannot precompress {}: {e}", dir.display());
            ExitCode::FAILURE
        }
    }
}

async fn serve(args: ServeArgs) -> ExitCode {
    tracing_subscriber::fmt()
        .with_max_level(args.log.level())
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let config = args.into_config();
    let mut description = config.source.describe();
    let no_auth = config.access.token == TokenRule::Off;
    let server = match taskview_server::serve(config).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("taskview: {e}");
            return ExitCode::FAILURE;
        }
    };
    let addr = server.addr();
    if addr.ip().is_unspecified() {
        description.push_str(&format!("; listening on every interface, {addr}"));
    }
    if no_auth {
        eprintln!("taskview: {}", no_auth_warning(addr));
    }
    println!("taskview: serving {} ({description})", server.url());
    // Nothing useful to do if stdout is gone; the server keeps running.
    let _ = std::io::stdout().flush();
    termination().await;
    tracing::info!("shutting down");
    match server.shutdown().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("taskview: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What `--no-auth` gives away, said at start.
fn no_auth_warning(addr: std::net::SocketAddr) -> String {
    if addr.ip().to_canonical().is_loopback() {
        return "--no-auth: no token is asked for (none is on loopback anyway); every program \
                and user of this machine can read what is served"
            .into();
    }
    format!(
        "WARNING: --no-auth: anyone who can reach {addr} reads every transcript this server \
         holds (code, files and any secrets in them) with no token; the Host and Origin \
         checks remain, but they do not stop a program or a person on the network"
    )
}

/// Resolves on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
async fn termination() {
    let interrupt = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!("cannot listen for Ctrl-C: {e}");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(e) => {
                tracing::error!("cannot listen for SIGTERM: {e}");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
