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

/// What a configuration variable accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepts {
    /// A decimal number in this range.
    Number(u64, u64),
    /// `0` (off) or `1` (on).
    Switch,
    /// Any value: set means on (developer aids).
    Flag,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A path or a command (checked where it is used).
    Path,
    /// Any text, empty included.
    Text,
}

/// Every variable the driver reads (the README's configuration table), with what it accepts.
/// The readers ([`var`], [`bounded`] and the modules' configuration structs) apply defaults;
/// this table is what [`check_environment`] validates, once, so that a value nobody would
/// understand is reported instead of silently ignored.
pub const VARIABLES: &[(&str, Accepts)] = &[
    ("VENTUS_THREADS", Accepts::Number(1, 256)),
    ("VENTUS_WATCHDOG", Accepts::Number(0, u64::MAX)),
    ("VENTUS_WATCHDOG_SECONDS", Accepts::Number(0, u32::MAX as u64)),
    ("VENTUS_TIMEOUT", Accepts::Number(0, u32::MAX as u64)),
    ("VENTUS_TRAP", Accepts::Choice(&["fault", "end-group", "spike"])),
    ("VENTUS_MEMCHECK", Accepts::Number(0, 2)),
    ("NUM_THREAD", Accepts::Number(1, 32)),
    ("VENTUS_NUM_THREAD", Accepts::Number(1, 32)),
    ("NUM_WARP", Accepts::Number(1, 32)),
    ("VENTUS_NUM_WARP", Accepts::Number(1, 32)),
    ("VENTUS_PRINTF_BUFFER_SIZE", Accepts::Number(64, 256 << 20)),
    ("VENTUS_LEGACY_PRINTF", Accepts::Switch),
    ("VENTUS_NATIVE_FP64", Accepts::Switch),
    ("VENTUS_SIMD", Accepts::Switch),
    ("VENTUS_JIT", Accepts::Switch),
    ("VENTUS_PERF_MAP", Accepts::Switch),
    ("VENTUS_STATS", Accepts::Switch),
    ("VENTUS_CACHE", Accepts::Switch),
    ("VENTUS_CACHE_DIR", Accepts::Path),
    ("VENTUS_CLANG", Accepts::Path),
    ("VENTUS_BUILD_OPTIONS", Accepts::Text),
    ("VENTUS_LLVM_SPIRV", Accepts::Path),
    ("VENTUS_TOOL_TIMEOUT", Accepts::Number(1, 3600)),
    ("VENTUS_TOOL_MEMORY", Accepts::Number(0, 65536)),
    ("VENTUS_DUMP_IR", Accepts::Flag),
    ("VENTUS_DUMP_ASM", Accepts::Flag),
    ("VENTUS_INLINE_SUBROUTINES", Accepts::Flag),
    ("VENTUS_NO_MEM2REG", Accepts::Flag),
    // Developer tools and the test suite's own (tools/*.sh, compiler filetests, child tests).
    ("VENTUS_SO", Accepts::Path),
    ("VENTUS_BLESS", Accepts::Flag),
    ("VENTUS_ICD_CHILD", Accepts::Flag),
];

/// The problems with `vars` (name, value): unknown `VENTUS_*` names and values a variable does
/// not accept, one message each.
pub fn problems(vars: impl IntoIterator<Item = (String, String)>) -> Vec<String> {
    let mut out = Vec::new();
    for (name, value) in vars {
        let Some(&(_, accepts)) = VARIABLES.iter().find(|(n, _)| *n == name) else {
            if name.starts_with("VENTUS_") {
                out.push(format!("unknown variable {name} (ignored; the README lists the VENTUS_* variables)"));
            }
            continue;
        };
        let v = value.trim();
        let expected = match accepts {
            Accepts::Number(lo, hi) => match v.parse::<u64>() {
                Ok(x) if (lo..=hi).contains(&x) => continue,
                _ => format!("a number in {lo}..={hi}"),
            },
            Accepts::Switch if v == "0" || v == "1" => continue,
            Accepts::Switch => "0 or 1".to_string(),
            Accepts::Choice(words) if words.contains(&v) => continue,
            Accepts::Choice(words) => format!("one of {}", words.join(", ")),
            Accepts::Text => continue,
            Accepts::Flag | Accepts::Path if !v.is_empty() => continue,
            Accepts::Flag | Accepts::Path => "a non-empty value".to_string(),
        };
        out.push(format!("{name}={value:?} is not understood: expected {expected}; the default is used"));
    }
    out
}

/// Warns, once per process, about every problem of the process environment ([`problems`]).
pub fn check_environment() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let vars =
            std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned())));
        for p in problems(vars) {
            log::warn!("{p}");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variable_is_validated_in_one_place() {
        let v = |pairs: &[(&str, &str)]| problems(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        assert!(
            v(&[("VENTUS_THREADS", "2"), ("VENTUS_MEMCHECK", "2"), ("VENTUS_CACHE", "0"), ("HOME", "/x")]).is_empty()
        );
        assert!(v(&[("VENTUS_TRAP", "end-group"), ("NUM_WARP", "8"), ("VENTUS_DUMP_IR", "1")]).is_empty());
        let p = v(&[("VENTUS_MEMCHECK", "7")]);
        assert!(p.len() == 1 && p[0].contains("VENTUS_MEMCHECK=\"7\"") && p[0].contains("0..=2"), "{p:?}");
        let p = v(&[("VENTUS_CACHE", "nope")]);
        assert!(p.len() == 1 && p[0].contains("0 or 1"), "{p:?}");
        let p = v(&[("VENTUS_THREDS", "4")]);
        assert!(p.len() == 1 && p[0].contains("unknown variable VENTUS_THREDS"), "{p:?}");
        assert_eq!(v(&[("VENTUS_TRAP", "stop"), ("VENTUS_THREADS", "0"), ("NUM_THREAD", "x")]).len(), 3);
    }

    #[test]
    fn out_of_range_values_fall_back_to_the_default() {
        assert_eq!(bounded("X", Some(0u32), 1..=32, 8), 8);
        assert_eq!(bounded("X", Some(1000u32), 1..=32, 8), 8);
        assert_eq!(bounded("X", Some(16u32), 1..=32, 8), 16);
        assert_eq!(bounded("X", None, 1..=32, 8), 8);
        assert_eq!(bounded("X", Some(100_000usize), 1..=256, 2), 2);
    }
}
