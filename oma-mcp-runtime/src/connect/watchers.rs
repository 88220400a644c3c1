//! Who receives the session's resource notifications: each open subscription registers a
//! [`ResourceFilter`] and gets the `notifications/resources/updated` of its URIs (and, for a
//! `subscriptions/listen`, the `notifications/subscriptions/acknowledged` and updates naming
//! its request), so a subscription nobody polls holds only its own. Also how many open
//! subscriptions hold each URI through `resources/subscribe`, so that the last one to end
//! sends `resources/unsubscribe` and no other loses its updates.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;

use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The `_meta` member naming the `subscriptions/listen` request a notification belongs to
/// (MCP 2026-07-28).
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The notifications routed here: resource updates (MCP 2024-11-05 and later) and the
/// acknowledgment of a `subscriptions/listen` (2026-07-28).
pub(super) const RESOURCE_NOTIFICATIONS: [&str; 2] = [
    "notifications/resources/updated",
    "notifications/subscriptions/acknowledged",
];

/// What one subscription receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResourceFilter {
    /// The URIs whose updates it receives.
    pub uris: BTreeSet<String>,
    /// The id of its `subscriptions/listen`: its acknowledgment, and no update naming another
    /// listen. `None` for `resources/subscribe`.
    pub listen: Option<u64>,
}

impl ResourceFilter {
    /// Whether a notification `method` with `params` is for this subscription.
    fn wants(&self, method: &str, params: &Value) -> bool {
        let owner = params
            .get("_meta")
            .and_then(|meta| meta.get(SUBSCRIPTION_ID));
        let own = |listen: u64| owner == Some(&json!(listen));
        match method {
            "notifications/subscriptions/acknowledged" => self.listen.is_some_and(own),
            _ => {
                let uri = params.get("uri").and_then(Value::as_str);
                uri.is_some_and(|uri| self.uris.contains(uri))
                    && (owner.is_none() || self.listen.is_none_or(own))
            }
        }
    }
}

/// The watchers of one session and the URIs held through `resources/subscribe`.
#[derive(Debug, Default)]
pub(super) struct Watchers {
    watchers: Mutex<HashMap<u64, (ResourceFilter, mpsc::UnboundedSender<Value>)>>,
    held: Mutex<BTreeMap<String, usize>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Watchers {
    /// Registers `tx` under `key` for what `filter` wants.
    pub(super) fn watch(&self, key: u64, filter: ResourceFilter, tx: mpsc::UnboundedSender<Value>) {
        lock(&self.watchers).insert(key, (filter, tx));
    }

    /// Unregisters `key`.
    pub(super) fn unwatch(&self, key: u64) {
        lock(&self.watchers).remove(&key);
    }

    /// Ends every watcher (their receivers end): the connection closed, or its session was
    /// replaced by a new one that holds none of the old subscriptions.
    pub(super) fn end_all(&self) {
        lock(&self.watchers).clear();
        lock(&self.held).clear();
    }

    /// Passes a resource notification to each watcher that wants it, as
    /// `{"method": …, "params": …}`.
    pub(super) fn deliver(&self, method: &str, params: Option<&Value>) {
        let params = params.unwrap_or(&Value::Null);
        let watchers = lock(&self.watchers);
        let mut delivered = 0;
        for (filter, tx) in watchers.values() {
            if filter.wants(method, params) {
                let _ = tx.send(json!({"method": method, "params": params}));
                delivered += 1;
            }
        }
        tracing::debug!(%method, delivered, "resource notification");
    }

    /// Counts one more subscription holding `uri`; `true` when it is the first (the one that
    /// sends `resources/subscribe`).
    pub(super) fn hold(&self, uri: &str) -> bool {
        let mut held = lock(&self.held);
        let count = held.entry(uri.to_owned()).or_insert(0);
        *count += 1;
        *count == 1
    }

    /// Counts one subscription fewer holding `uri`; `true` when it was the last (the one that
    /// sends `resources/unsubscribe`).
    pub(super) fn release(&self, uri: &str) -> bool {
        let mut held = lock(&self.held);
        match held.get_mut(uri) {
            Some(count) if *count > 1 => {
                *count -= 1;
                false
            }
            Some(_) => {
                held.remove(uri);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(uris: &[&str], listen: Option<u64>) -> ResourceFilter {
        ResourceFilter {
            uris: uris.iter().map(|u| (*u).to_owned()).collect(),
            listen,
        }
    }

    #[test]
    fn a_watcher_gets_its_own_notifications_only() {
        let watchers = Watchers::default();
        let (tx_listen, mut listen) = mpsc::unbounded_channel();
        let (tx_plain, mut plain) = mpsc::unbounded_channel();
        watchers.watch(1, filter(&["memo://a"], Some(7)), tx_listen);
        watchers.watch(2, filter(&["memo://b"], None), tx_plain);
        let updated = "notifications/resources/updated";
        let acknowledged = "notifications/subscriptions/acknowledged";
        let meta = |id: u64| json!({ SUBSCRIPTION_ID: id });
        watchers.deliver(acknowledged, Some(&json!({"_meta": meta(8)})));
        watchers.deliver(acknowledged, Some(&json!({"_meta": meta(7)})));
        watchers.deliver(updated, Some(&json!({"uri": "memo://a", "_meta": meta(8)})));
        watchers.deliver(updated, Some(&json!({"uri": "memo://a", "_meta": meta(7)})));
        watchers.deliver(updated, Some(&json!({"uri": "memo://a"})));
        watchers.deliver(updated, Some(&json!({"uri": "memo://b"})));
        watchers.deliver(updated, None);
        let got = |rx: &mut mpsc::UnboundedReceiver<Value>| {
            let mut got = Vec::new();
            while let Ok(message) = rx.try_recv() {
                got.push(message);
            }
            got
        };
        assert_eq!(
            got(&mut listen),
            [
                json!({"method": acknowledged, "params": {"_meta": meta(7)}}),
                json!({"method": updated, "params": {"uri": "memo://a", "_meta": meta(7)}}),
                json!({"method": updated, "params": {"uri": "memo://a"}}),
            ]
        );
        assert_eq!(
            got(&mut plain),
            [json!({"method": updated, "params": {"uri": "memo://b"}})]
        );
        watchers.unwatch(1);
        watchers.deliver(updated, Some(&json!({"uri": "memo://a"})));
        assert_eq!(got(&mut listen), Vec::<Value>::new());
        watchers.end_all();
        assert!(plain.try_recv().is_err());
        assert!(plain.is_closed());
    }

    #[test]
    fn the_first_hold_subscribes_and_the_last_release_unsubscribes() {
        let watchers = Watchers::default();
        assert!(watchers.hold("memo://a"));
        assert!(!watchers.hold("memo://a"));
        assert!(!watchers.release("memo://a"));
        assert!(watchers.release("memo://a"));
        assert!(!watchers.release("memo://a"));
        assert!(watchers.hold("memo://a"));
        watchers.end_all();
        assert!(watchers.hold("memo://a"));
    }
}
