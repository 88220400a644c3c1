//! What the bench binaries share: the median of timed runs and milliseconds for tables.

use std::time::Duration;

/// The median of `times` (the upper one of the middle two for an even count; zero when
/// empty); sorts `times` in place.
pub fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

/// `d` in milliseconds, for printing.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
