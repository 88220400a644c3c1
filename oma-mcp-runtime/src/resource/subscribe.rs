//! Subscriptions to resource updates, one API over the two forms of the MCP revisions:
//! `subscriptions/listen` in 2026-07-28 (one request that stays open, acknowledged with
//! `notifications/subscriptions/acknowledged`, its updates tagged with its id, ended by
//! cancelling it), `resources/subscribe` and `resources/unsubscribe` before it (one request per
//! URI, updates on the session's stream). Either way the updates are
//! `notifications/resources/updated` with the resource's `uri`.

use std::future::Future;
use std::pin::Pin;

use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

use super::ResourceUri;
use crate::Error;
use crate::connect::{McpClient, ResourceWatch};
use crate::error::RequestError;

/// The first revision whose subscriptions are `subscriptions/listen`.
const LISTEN_REVISION: &str = "2026-07-28";

/// The `_meta` member naming the `subscriptions/listen` request a notification belongs to.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// One `notifications/resources/updated`: the resource at `uri` changed; read it again
/// with [`McpClient::read`] for its new contents.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceUpdated {
    /// The URI of the resource that changed.
    pub uri: String,
}

/// The open `subscriptions/listen` request: its future (polled by [`Subscription::next`];
/// dropping it cancels the request) and its id.
type Listen<'a> = Pin<Box<dyn Future<Output = Result<Value, Error>> + Send + 'a>>;

/// How the subscription was made.
enum Form<'a> {
    /// `subscriptions/listen` (2026-07-28): the open request and its id.
    Listen { request: Listen<'a>, id: u64 },
    /// `resources/subscribe` per URI (before 2026-07-28); `resources/unsubscribe` ends it.
    Subscribe,
}

/// An open subscription to updates of some resources of one server
/// ([`McpClient::subscribe`]): [`Subscription::next`] waits for the next update. Dropping it
/// ends the subscription on the server (cancels the `subscriptions/listen`, or sends
/// `resources/unsubscribe` per URI without waiting); [`Subscription::unsubscribe`] does the
/// same and waits for the server's answers.
pub struct Subscription<'a> {
    client: &'a McpClient,
    uris: Vec<String>,
    updates: UnboundedReceiver<Value>,
    form: Form<'a>,
    /// The listen was answered (the server ended it) or the connection closed.
    ended: bool,
    /// `resources/unsubscribe` was sent already.
    unsubscribed: bool,
    _watch: ResourceWatch,
}

impl std::fmt::Debug for Subscription<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("uris", &self.uris)
            .field("listen", &matches!(self.form, Form::Listen { .. }))
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl McpClient {
    /// Subscribes to updates of `resources` (static resources, expanded templates or URIs):
    /// with `subscriptions/listen` where the negotiated revision is 2026-07-28 or later (after
    /// the server's acknowledgment, which may accept fewer resources:
    /// [`Subscription::uris`] says which), else with one `resources/subscribe` per URI.
    ///
    /// ```ignore
    /// let mut updates = client.subscribe([resources::README]).await?;
    /// while let Some(update) = updates.next().await {
    ///     let contents = client.read(update.uri.as_str()).await?;
    /// }
    /// ```
    ///
    /// # Errors
    /// [`ConfigError::UriTemplate`](crate::error::ConfigError::UriTemplate) when a template
    /// does not expand; [`RequestError::Unsupported`] when the server does not declare
    /// `resources.subscribe` or its acknowledgment accepts none of the resources;
    /// [`RequestError::Timeout`] when no acknowledgment (or `resources/subscribe` answer)
    /// arrives within the request timeout; [`RequestError::Rpc`] as the server answers; a
    /// closed connection ([`Error::Disconnected`]).
    pub async fn subscribe<R: ResourceUri>(
        &self,
        resources: impl IntoIterator<Item = R>,
    ) -> Result<Subscription<'_>, Error> {
        let mut uris = Vec::new();
        for resource in resources {
            let uri = resource
                .resource_uri()
                .map_err(|e| Error::Config(crate::error::ConfigError::UriTemplate(e)))?;
            if !uris.iter().any(|u| u == uri.as_ref()) {
                uris.push(uri.into_owned());
            }
        }
        let listen = self.protocol_version() >= LISTEN_REVISION;
        let method = if listen {
            "subscriptions/listen"
        } else {
            "resources/subscribe"
        };
        let declared = self
            .capabilities()
            .and_then(|c| c.pointer("/resources/subscribe"))
            == Some(&Value::Bool(true));
        if !declared {
            return Err(self.unsupported(
                method,
                "does not declare `resources.subscribe` in its capabilities: it sends no \
                 resource updates (read the resource again instead)",
            ));
        }
        let (watch, updates) = self.watch_resources();
        let mut subscription = Subscription {
            client: self,
            uris: Vec::new(),
            updates,
            form: Form::Subscribe,
            ended: false,
            unsubscribed: false,
            _watch: watch,
        };
        if listen {
            subscription.listen(uris).await?;
        } else {
            for uri in uris {
                self.request_raw("resources/subscribe", &json!({ "uri": uri }))
                    .await?;
                subscription.uris.push(uri);
            }
        }
        Ok(subscription)
    }

    /// A [`RequestError::Unsupported`] of this server.
    fn unsupported(&self, method: &str, reason: &str) -> Error {
        Error::Request(RequestError::Unsupported {
            method: method.to_owned(),
            server: self.server_label().to_owned(),
            reason: reason.to_owned(),
        })
    }
}

impl<'a> Subscription<'a> {
    /// Opens the `subscriptions/listen` for `uris` and waits (at most the request timeout)
    /// for its acknowledgment; keeps the URIs the server accepted.
    async fn listen(&mut self, uris: Vec<String>) -> Result<(), Error> {
        const METHOD: &str = "subscriptions/listen";
        let client = self.client;
        let params = json!({"notifications": {"resourceSubscriptions": uris}});
        let (id, request) = client.request_open(METHOD, &params)?;
        let mut request: Listen<'a> = Box::pin(request);
        let timeout = client.request_timeout();
        let acknowledged = async {
            while let Some(message) = self.updates.recv().await {
                if message["method"] == "notifications/subscriptions/acknowledged"
                    && message["params"]["_meta"][SUBSCRIPTION_ID] == json!(id)
                {
                    return Some(message);
                }
            }
            None
        };
        let acknowledgment = tokio::select! {
            acknowledged = tokio::time::timeout(timeout, acknowledged) => acknowledged,
            answer = &mut request => {
                // Answered before any acknowledgment: an error, or a server that ended the
                // listen at once.
                return Err(match answer {
                    Err(e) => e,
                    Ok(_) => client.unsupported(
                        METHOD,
                        "ended the subscription before acknowledging it",
                    ),
                });
            }
        };
        let message = match acknowledgment {
            Ok(Some(message)) => message,
            // The connection closed: the request's answer says how.
            Ok(None) => {
                return Err(match request.await {
                    Err(e) => e,
                    Ok(_) => Error::Disconnected(crate::error::DisconnectedError::ConnectionClosed),
                });
            }
            Err(_) => {
                return Err(Error::Request(RequestError::Timeout {
                    method: METHOD.to_owned(),
                    timeout,
                    per_call: false,
                }));
            }
        };
        let accepted: Vec<String> = message["params"]["notifications"]["resourceSubscriptions"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .filter(|u| uris.iter().any(|asked| asked == u))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if accepted.is_empty() {
            return Err(client.unsupported(
                METHOD,
                "acknowledged the subscription without any of the resources asked for; it \
                 sends no updates of them",
            ));
        }
        self.uris = accepted;
        self.form = Form::Listen { request, id };
        Ok(())
    }

    /// The URIs this subscription receives updates of, in the order asked for (for
    /// `subscriptions/listen`, those the server accepted).
    pub fn uris(&self) -> &[String] {
        &self.uris
    }

    /// The next update of one of [`Subscription::uris`], or `None` once the subscription
    /// ended: the server ended the `subscriptions/listen`, or the connection closed. Updates
    /// of other resources (another subscription's) are skipped.
    pub async fn next(&mut self) -> Option<ResourceUpdated> {
        if self.ended {
            return None;
        }
        loop {
            let message = match &mut self.form {
                Form::Listen { request, .. } => tokio::select! {
                    message = self.updates.recv() => message,
                    _ = request => None,
                },
                Form::Subscribe => self.updates.recv().await,
            };
            let Some(message) = message else {
                self.ended = true;
                return None;
            };
            if message["method"] != "notifications/resources/updated" {
                continue;
            }
            if let Form::Listen { id, .. } = self.form
                && let Some(owner) = message["params"]["_meta"].get(SUBSCRIPTION_ID)
                && owner != &json!(id)
            {
                continue;
            }
            let Some(uri) = message["params"]["uri"].as_str() else {
                continue;
            };
            if self.uris.iter().any(|u| u == uri) {
                return Some(ResourceUpdated {
                    uri: uri.to_owned(),
                });
            }
        }
    }

    /// Ends the subscription on the server and waits for it: cancels the
    /// `subscriptions/listen` (a notification, nothing to wait for), or sends one
    /// `resources/unsubscribe` per URI and waits for each answer.
    ///
    /// # Errors
    /// The first failed `resources/unsubscribe` ([`RequestError::Rpc`], a timeout, a closed
    /// connection); the others are still sent.
    pub async fn unsubscribe(mut self) -> Result<(), Error> {
        if !matches!(self.form, Form::Subscribe) || self.ended {
            return Ok(());
        }
        self.unsubscribed = true;
        let mut first = None;
        for uri in &self.uris {
            if let Err(e) = self
                .client
                .request_raw("resources/unsubscribe", &json!({ "uri": uri }))
                .await
            {
                first.get_or_insert(e);
            }
        }
        first.map_or(Ok(()), Err)
    }
}

impl Drop for Subscription<'_> {
    fn drop(&mut self) {
        // A listen is cancelled by dropping its request; `resources/subscribe` needs its
        // `resources/unsubscribe`, sent without waiting for the answer.
        if matches!(self.form, Form::Subscribe) && !self.unsubscribed && !self.ended {
            for uri in &self.uris {
                self.client
                    .request_unanswered("resources/unsubscribe", &json!({ "uri": uri }));
            }
        }
    }
}
