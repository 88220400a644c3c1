//! What the bench binaries share: the median of timed runs, milliseconds for tables, and the
//! machine's load average printed beside the figures.

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

/// `/proc/loadavg`'s three load averages (1, 5 and 15 minutes) as one line, or `?` where it
/// cannot be read (not Linux).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".to_owned())
}
