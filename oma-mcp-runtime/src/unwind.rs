//! Panics of code a user hands to oma-mcp (a gate, a fake's handler) caught where they
//! happen, so that one bug becomes one error result instead of ending an agent's task or a
//! fake's connection.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::task::Poll;

/// The message of a caught panic: its `&str` or `String` payload, else `no message`.
pub(crate) fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}

/// `future`'s output, or the message of a panic raised while it was polled.
#[cfg_attr(not(feature = "tools"), allow(dead_code))]
pub(crate) async fn caught<F: Future>(future: F) -> Result<F::Output, String> {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(move |cx| {
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(panic) => Poll::Ready(Err(panic_message(&*panic))),
        }
    })
    .await
}
