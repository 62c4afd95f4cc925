//! One connection to the store, made when first needed and made again
//! after the database went away (stopped, restarted, a network cut): every
//! user asks for the client, and a client whose connection ended is
//! replaced on the next ask. A second connection can listen for the
//! writers' notifications.

use super::url::UrlError;
use super::{StoreError, StoreUrl};
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Mutex};
use tokio_postgres::config::SslMode;
use tokio_postgres::{AsyncMessage, Client, Config};
use tokio_postgres_rustls::MakeRustlsConnect;

/// How long a connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The channel writers notify after each batch they commit.
pub(super) const CHANNEL: &str = "taskview_changes";

/// A connection to the store, made again when it ends.
pub(super) struct Link {
    url: StoreUrl,
    config: Config,
    tls: MakeRustlsConnect,
    client: Mutex<Option<Arc<Client>>>,
}

impl Link {
    /// Not connected yet; an address that cannot be used (its TLS roots
    /// unreadable too) is refused now.
    pub(super) fn new(url: StoreUrl) -> Result<Link, StoreError> {
        let (config, tls) = url.parts().map_err(|e| match e {
            UrlError::Tls(e) => StoreError::Tls(e),
            UrlError::NotPostgres => {
                StoreError::Address(format!("{url} is not a PostgreSQL address"))
            }
        })?;
        Ok(Link {
            config: with_defaults(config),
            tls: tls.connector()?,
            url,
            client: Mutex::new(None),
        })
    }

    /// Connects once, an error said plainly when the server wants TLS and
    /// the address said `sslmode=disable`.
    async fn connect(
        &self,
    ) -> Result<
        (
            Client,
            tokio_postgres::Connection<
                tokio_postgres::Socket,
                impl tokio_postgres::tls::TlsStream + Unpin,
            >,
        ),
        StoreError,
    > {
        let made = self.config.connect(self.tls.clone()).await;
        made.map_err(|e| {
            let refused = super::with_causes(&e);
            if self.config.get_ssl_mode() == SslMode::Disable && refused.contains("no encryption") {
                StoreError::TlsRequired(refused)
            } else {
                StoreError::Database(e)
            }
        })
    }

    /// The address, its password masked.
    pub(super) fn url(&self) -> &StoreUrl {
        &self.url
    }

    /// The client, connecting first when there is none or its connection ended.
    pub(super) async fn client(&self) -> Result<Arc<Client>, StoreError> {
        let mut held = self.client.lock().await;
        if let Some(client) = held.as_ref().filter(|c| !c.is_closed()) {
            return Ok(Arc::clone(client));
        }
        *held = None;
        let (client, connection) = self.connect().await?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("store connection ended: {e}");
            }
        });
        let client = Arc::new(client);
        *held = Some(Arc::clone(&client));
        Ok(client)
    }

    /// Opens a connection of its own that listens on [`CHANNEL`]: each
    /// notification wakes the listener; its wakes end with the connection.
    /// An error where the engine has no LISTEN (readers poll anyway).
    pub(super) async fn listen(&self) -> Result<Listener, StoreError> {
        let (client, mut connection) = self.connect().await?;
        let (tx, wakes) = mpsc::channel(1);
        tokio::spawn(async move {
            let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
            while let Some(Ok(message)) = messages.next().await {
                if matches!(message, AsyncMessage::Notification(_)) {
                    let _ = tx.try_send(());
                }
            }
        });
        client.batch_execute(&format!("LISTEN {CHANNEL}")).await?;
        Ok(Listener {
            _client: client,
            wakes,
        })
    }
}

/// A connection listening for the writers' notifications.
pub(super) struct Listener {
    /// Kept so the connection stays open.
    _client: Client,
    /// One `()` per notification (several close together may be one).
    pub(super) wakes: mpsc::Receiver<()>,
}

/// The client's configuration, with a connection time limit and a name
/// unless the address sets them.
fn with_defaults(mut config: Config) -> Config {
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("taskview");
    }
    config
}
