//! Reading configuration from the environment: a variable that is not a number, or lies outside
//! its range, is ignored with a warning naming it, and the default is used.

/// The first of `names` that is set, parsed (`None` if none is set, or with a warning if the
/// value does not parse).
pub fn var<T: std::str::FromStr>(names: &[&str]) -> Option<T> {
    names.iter().find_map(|n| {
        let v = std::env::var(n).ok()?;
        match v.trim().parse() {
            Ok(x) => Some(x),
            Err(_) => {
                log::warn!("ignoring {n}={v:?}: not a valid value");
                None
            }
        }
    })
}

/// `value` if it lies in `range`, else a warning naming the variables and `default`.
pub fn bounded<T: PartialOrd + std::fmt::Display + Copy>(
    names: &str,
    value: Option<T>,
    range: std::ops::RangeInclusive<T>,
    default: T,
) -> T {
    match value {
        Some(v) if range.contains(&v) => v,
        Some(v) => {
            log::warn!("ignoring {names}={v}: must be {}..={}; using {default}", range.start(), range.end());
            default
        }
        None => default,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_values_fall_back_to_the_default() {
        assert_eq!(bounded("X", Some(0u32), 1..=32, 8), 8);
        assert_eq!(bounded("X", Some(1000u32), 1..=32, 8), 8);
        assert_eq!(bounded("X", Some(16u32), 1..=32, 8), 16);
        assert_eq!(bounded("X", None, 1..=32, 8), 8);
        assert_eq!(bounded("X", Some(100_000usize), 1..=256, 2), 2);
    }
}
