//! One connection to the store, made when first needed and made again
//! after the database went away (stopped, restarted, a network cut): every
//! user asks for the client, and a client whose connection ended is
//! replaced on the next ask. A second connection can listen for the
//! writers' notifications.

use super::{StoreError, StoreUrl};
use futures_util::StreamExt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Mutex};
use tokio_postgres::{AsyncMessage, Client, Config, NoTls};

/// How long a connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The channel writers notify after each batch they commit.
pub(super) const CHANNEL: &str = "taskview_changes";

/// A connection to the store, made again when it ends.
pub(super) struct Link {
    url: StoreUrl,
    client: Mutex<Option<Arc<Client>>>,
}

impl Link {
    /// Not connected yet.
    pub(super) fn new(url: StoreUrl) -> Link {
        Link {
            url,
            client: Mutex::new(None),
        }
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
        let (client, connection) = config(&self.url)?.connect(NoTls).await?;
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
        let (client, mut connection) = config(&self.url)?.connect(NoTls).await?;
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

/// The client's configuration, with a connection time limit unless the
/// address sets one.
fn config(url: &StoreUrl) -> Result<Config, StoreError> {
    let mut config = Config::from_str(url.secret())?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("taskview");
    }
    Ok(config)
}
