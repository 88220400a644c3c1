//! Subscriptions to resource updates, one API over the two forms of the MCP revisions:
//! `subscriptions/listen` in 2026-07-28 (one request that stays open, acknowledged with
//! `notifications/subscriptions/acknowledged`, its updates tagged with its id, ended by
//! cancelling it), `resources/subscribe` and `resources/unsubscribe` before it (one request per
//! URI, updates on the session's stream). Either way the updates are
//! `notifications/resources/updated` with the resource's `uri`.

use std::collections::{BTreeSet, VecDeque};
use std::future::Future;
use std::pin::Pin;

use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

use super::ResourceUri;
use crate::Error;
use crate::connect::{McpClient, ResourceFilter, ResourceWatch};
use crate::error::{DisconnectedError, RequestError};

/// The first revision whose subscriptions are `subscriptions/listen`.
const LISTEN_REVISION: &str = "2026-07-28";

/// One `notifications/resources/updated`: the resource at `uri` changed; read it again
/// with [`McpClient::read`] for its new contents.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceUpdated {
    /// The URI of the resource that changed.
    pub uri: String,
}

/// The open `subscriptions/listen` request's answer (polled by [`Subscription::next`];
/// dropping it cancels the request).
type Listen<'a> = Pin<Box<dyn Future<Output = Result<Value, Error>> + Send + 'a>>;

/// How the subscription was made.
enum Form<'a> {
    /// `subscriptions/listen` (2026-07-28): the open request.
    Listen(Listen<'a>),
    /// `resources/subscribe` per URI (before 2026-07-28); each URI is released (and the last
    /// holder sends `resources/unsubscribe`) when the subscription ends.
    Subscribe,
}

/// An open subscription to updates of some resources of one server
/// ([`McpClient::subscribe`]): [`Subscription::next`] waits for the next update. Dropping it
/// ends the subscription on the server: it cancels the `subscriptions/listen`, or sends
/// `resources/unsubscribe` for each URI no other open subscription of the client holds,
/// without waiting; [`Subscription::unsubscribe`] does the same and waits for the answers.
pub struct Subscription<'a> {
    client: &'a McpClient,
    uris: Vec<String>,
    /// Updates that arrived while the acknowledgment was awaited, given first.
    early: VecDeque<ResourceUpdated>,
    updates: Option<UnboundedReceiver<Value>>,
    form: Form<'a>,
    _watch: Option<ResourceWatch>,
}

impl std::fmt::Debug for Subscription<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("uris", &self.uris)
            .field("listen", &matches!(self.form, Form::Listen(_)))
            .field("ended", &self.updates.is_none())
            .finish_non_exhaustive()
    }
}

impl McpClient {
    /// Subscribes to updates of `resources` (static resources, expanded templates or URIs;
    /// each URI once): with `subscriptions/listen` where the negotiated revision is
    /// 2026-07-28 or later (after the server's acknowledgment, which may accept fewer
    /// resources: [`Subscription::uris`] says which), else with one `resources/subscribe`
    /// per URI. No resource at all gives a subscription that has ended (nothing is sent).
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
        let mut subscription = Subscription {
            client: self,
            uris: Vec::new(),
            early: VecDeque::new(),
            updates: None,
            form: Form::Subscribe,
            _watch: None,
        };
        if uris.is_empty() {
            return Ok(subscription);
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
        if listen {
            subscription.listen(uris).await?;
        } else {
            let filter = ResourceFilter {
                uris: uris.iter().cloned().collect(),
                listen: None,
            };
            let (watch, updates) = self.watch_resources(filter);
            subscription.updates = Some(updates);
            subscription._watch = Some(watch);
            for uri in uris {
                if self.hold_resource(&uri)
                    && let Err(e) = self
                        .request_raw("resources/subscribe", &json!({ "uri": uri }))
                        .await
                {
                    self.release_resource(&uri);
                    return Err(e);
                }
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

/// The update a resource notification carries, if it is one.
fn update_of(message: &Value) -> Option<ResourceUpdated> {
    if message["method"] != "notifications/resources/updated" {
        return None;
    }
    let uri = message["params"]["uri"].as_str()?;
    Some(ResourceUpdated {
        uri: uri.to_owned(),
    })
}

impl<'a> Subscription<'a> {
    /// Opens the `subscriptions/listen` for `uris` and waits (at most the request timeout)
    /// for its acknowledgment; keeps the URIs the server accepted, and the updates that came
    /// first.
    async fn listen(&mut self, uris: Vec<String>) -> Result<(), Error> {
        const METHOD: &str = "subscriptions/listen";
        let client = self.client;
        let params = json!({"notifications": {"resourceSubscriptions": uris}});
        let (id, request) = client.request_open(METHOD, &params)?;
        let mut request: Listen<'a> = Box::pin(request);
        // Watching before the request is sent (its future's first poll): nothing is missed.
        let filter = ResourceFilter {
            uris: uris.iter().cloned().collect(),
            listen: Some(id),
        };
        let (watch, mut updates) = client.watch_resources(filter);
        let mut early = VecDeque::new();
        let acknowledged = async {
            while let Some(message) = updates.recv().await {
                match update_of(&message) {
                    Some(update) => early.push_back(update),
                    None => return Some(message),
                }
            }
            None
        };
        let timeout = client.request_timeout();
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
                    Ok(_) => Error::Disconnected(DisconnectedError::ConnectionClosed),
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
        let accepted: BTreeSet<&str> = message["params"]["notifications"]["resourceSubscriptions"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let accepted: Vec<String> = uris
            .into_iter()
            .filter(|u| accepted.contains(u.as_str()))
            .collect();
        if accepted.is_empty() {
            return Err(client.unsupported(
                METHOD,
                "acknowledged the subscription without any of the resources asked for; it \
                 sends no updates of them",
            ));
        }
        early.retain(|update| accepted.contains(&update.uri));
        self.uris = accepted;
        self.early = early;
        self.updates = Some(updates);
        self.form = Form::Listen(request);
        self._watch = Some(watch);
        Ok(())
    }

    /// The URIs this subscription receives updates of, in the order asked for (for
    /// `subscriptions/listen`, those the server accepted).
    pub fn uris(&self) -> &[String] {
        &self.uris
    }

    /// The next update of one of [`Subscription::uris`], or `None` once the subscription has
    /// ended: the server ended the `subscriptions/listen`, the connection closed, or (over
    /// streamable HTTP) the server's session expired and a new one began, which holds none
    /// of the old subscriptions (subscribe again). Updates that arrived before the end are
    /// given first.
    pub async fn next(&mut self) -> Option<ResourceUpdated> {
        if let Some(update) = self.early.pop_front() {
            return Some(update);
        }
        loop {
            let updates = self.updates.as_mut()?;
            let message = match &mut self.form {
                Form::Listen(request) => tokio::select! {
                    // Queued updates before the end of the listen.
                    biased;
                    message = updates.recv() => message,
                    _ = request => None,
                },
                Form::Subscribe => updates.recv().await,
            };
            let Some(message) = message else {
                self.end();
                return None;
            };
            if let Some(update) = update_of(&message)
                && self.uris.contains(&update.uri)
            {
                return Some(update);
            }
        }
    }

    /// Ends the subscription on the server and waits for it: cancels the
    /// `subscriptions/listen` (a notification, nothing to wait for), or sends
    /// `resources/unsubscribe` for each URI no other open subscription holds and waits for
    /// each answer. Cancel-safe: what a dropped call did not unsubscribe, the drop does.
    ///
    /// # Errors
    /// The first failed `resources/unsubscribe` ([`RequestError::Rpc`], a timeout, a closed
    /// connection); the others are still sent.
    pub async fn unsubscribe(mut self) -> Result<(), Error> {
        if !matches!(self.form, Form::Subscribe) {
            return Ok(());
        }
        let mut first = None;
        while let Some(uri) = self.uris.pop() {
            if self.client.release_resource(&uri)
                && let Err(e) = self
                    .client
                    .request_raw("resources/unsubscribe", &json!({ "uri": uri }))
                    .await
            {
                first.get_or_insert(e);
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// The subscription has ended: no more updates; the URIs are no longer held (the
    /// session that held them is gone, or the listen ended).
    fn end(&mut self) {
        self.updates = None;
        self._watch = None;
        if matches!(self.form, Form::Subscribe) {
            for uri in self.uris.drain(..) {
                self.client.release_resource(&uri);
            }
        }
    }
}

impl Drop for Subscription<'_> {
    fn drop(&mut self) {
        // A listen is cancelled by dropping its request; `resources/subscribe` needs its
        // `resources/unsubscribe`, from the last holder of each URI, without waiting.
        if matches!(self.form, Form::Subscribe) {
            for uri in &self.uris {
                if self.client.release_resource(uri) {
                    self.client
                        .request_unanswered("resources/unsubscribe", &json!({ "uri": uri }));
                }
            }
        }
    }
}
