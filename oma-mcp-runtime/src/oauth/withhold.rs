//! [`withholding_secrets`]: runs one of rmcp's steps with its log lines that hold a secret
//! withheld. rmcp 3.11 writes the authorization code into a `DEBUG` line of the code exchange
//! (`start exchange code for token: "<code>"`); every other event and span goes to the
//! subscriber that was current, unchanged.

use std::future::Future;

use tracing::instrument::WithSubscriber;
use tracing::span;
use tracing::subscriber::{Interest, Subscriber};
use tracing::{Dispatch, Event, Metadata};

/// rmcp's events that hold a secret: `(target, start of the message)`.
const WITHHELD: &[(&str, &str)] = &[("rmcp::transport::auth", "start exchange code for token")];

/// Runs `step` (one of rmcp's calls) with the events of [`WITHHELD`] dropped, when they would
/// be logged at all.
pub(super) async fn withholding_secrets<F: Future>(step: F) -> F::Output {
    if !tracing::enabled!(target: "rmcp::transport::auth", tracing::Level::DEBUG) {
        return step.await;
    }
    let inner = tracing::dispatcher::get_default(Dispatch::clone);
    step.with_subscriber(Dispatch::new(Withholding { inner }))
        .await
}

/// A subscriber that hands everything to `inner`, except the events of [`WITHHELD`]. (The
/// one thing not handed on is `current_span`, whose type `tracing` does not re-export: inside
/// the step, `Span::current()` is a disabled span; the spans themselves reach `inner`.)
struct Withholding {
    inner: Dispatch,
}

/// Whether `event` is one of [`WITHHELD`].
fn withheld(event: &Event<'_>) -> bool {
    struct Message(Option<String>);
    impl tracing::field::Visit for Message {
        fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
            if field.name() == "message" {
                self.0 = Some(format!("{value:?}"));
            }
        }
    }
    let target = event.metadata().target();
    if !WITHHELD.iter().any(|(t, _)| *t == target) {
        return false;
    }
    let mut message = Message(None);
    event.record(&mut message);
    let message = message.0.unwrap_or_default();
    WITHHELD
        .iter()
        .any(|(t, start)| *t == target && message.starts_with(start))
}

impl Subscriber for Withholding {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        self.inner.register_callsite(metadata)
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        self.inner.enabled(metadata)
    }

    fn new_span(&self, span: &span::Attributes<'_>) -> span::Id {
        self.inner.new_span(span)
    }

    fn record(&self, span: &span::Id, values: &span::Record<'_>) {
        self.inner.record(span, values);
    }

    fn record_follows_from(&self, span: &span::Id, follows: &span::Id) {
        self.inner.record_follows_from(span, follows);
    }

    fn event(&self, event: &Event<'_>) {
        if !withheld(event) {
            self.inner.event(event);
        }
    }

    fn enter(&self, span: &span::Id) {
        self.inner.enter(span);
    }

    fn exit(&self, span: &span::Id) {
        self.inner.exit(span);
    }

    fn clone_span(&self, id: &span::Id) -> span::Id {
        self.inner.clone_span(id)
    }

    fn try_close(&self, id: span::Id) -> bool {
        self.inner.try_close(id)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// Keeps the message of every event.
    #[derive(Clone, Default)]
    struct Messages(Arc<Mutex<Vec<String>>>);

    impl Subscriber for Messages {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
            span::Id::from_u64(1)
        }
        fn record(&self, _: &span::Id, _: &span::Record<'_>) {}
        fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}
        fn event(&self, event: &Event<'_>) {
            struct Visit<'a>(&'a mut Vec<String>);
            impl tracing::field::Visit for Visit<'_> {
                fn record_debug(&mut self, _: &tracing::field::Field, v: &dyn std::fmt::Debug) {
                    self.0.push(format!("{v:?}"));
                }
            }
            event.record(&mut Visit(
                &mut self.0.lock().unwrap_or_else(|e| e.into_inner()),
            ));
        }
        fn enter(&self, _: &span::Id) {}
        fn exit(&self, _: &span::Id) {}
    }

    #[tokio::test]
    async fn only_the_secret_lines_are_withheld() {
        let messages = Messages::default();
        let _guard = tracing::subscriber::set_default(messages.clone());
        withholding_secrets(async {
            tracing::debug!(target: "rmcp::transport::auth", "start exchange code for token: {:?}", "c0de");
            tracing::debug!(target: "rmcp::transport::auth", "exchange token result: ok");
            tracing::debug!(target: "elsewhere", "start exchange code for token: shown");
        })
        .await;
        tracing::debug!(target: "rmcp::transport::auth", "start exchange code for token: after");
        assert_eq!(
            *messages.0.lock().unwrap_or_else(|e| e.into_inner()),
            [
                "exchange token result: ok",
                "start exchange code for token: shown",
                "start exchange code for token: after"
            ]
        );
    }
}
