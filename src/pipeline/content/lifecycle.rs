//! A method's lifecycle: the optional marks of its front matter, `since`
//! (the version it came in), `deprecated` (the version it went out of use
//! in, and what to use instead) and `removed` (the version it left the
//! library in, and its successor, if any), each with its date:
//!
//! ```toml
//! since = { version = "1.2", date = 2025-03-01 }
//! deprecated = { version = "2.0", date = 2026-11-01, use = "select" }
//! removed = { version = "3.0", date = 2026-11-20, use = "select" }
//! ```
//!
//! A date is a TOML local date or a string `YYYY-MM-DD`. What one file
//! can say is checked here (a version's form, a real date, marks in the
//! order of their dates, a `use` that is a key and not the method's own);
//! that a `use` names a method there is, and not a removed one, is checked
//! once every file is read (`catalog.rs`).

use super::entry::{is_key, Entry, KEY};
use super::fields::Check;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use time::Month;
use toml::value::Datetime;

/// One mark, as `deprecated` and `removed` are written: the version, its
/// date and optionally the method to use instead (`since` names none).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a table like { version = \"2.0\", date = 2026-11-01, use = \"select\" }"
)]
pub struct Mark {
    /// A version of the library: numbers joined by dots, optionally
    /// followed by - and a label (3.0-beta.1).
    #[schemars(regex(pattern = VERSION))]
    pub version: String,
    /// The day, as a TOML local date (2026-11-01) or a string YYYY-MM-DD.
    #[serde(deserialize_with = "day")]
    #[schemars(schema_with = "day_schema")]
    pub date: Date,
    /// The key of the method to use instead: one there is, not removed.
    #[serde(rename = "use")]
    #[schemars(regex(pattern = KEY))]
    pub successor: Option<String>,
}

/// A calendar day, ordered by time.
pub use time::Date;

/// Which mark: the name of its front matter field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// `since`.
    Since,
    /// `deprecated`.
    Deprecated,
    /// `removed`.
    Removed,
}

impl Stage {
    /// The marks in the order they happen to a method.
    pub(crate) const ALL: [Stage; 3] = [Stage::Since, Stage::Deprecated, Stage::Removed];

    /// The front matter field (and the JSON member) of the mark.
    pub(crate) const fn field(self) -> &'static str {
        match self {
            Stage::Since => "since",
            Stage::Deprecated => "deprecated",
            Stage::Removed => "removed",
        }
    }
}

impl Entry {
    /// Every mark given, with its stage, in the order they happen.
    pub(crate) fn marks(&self) -> impl Iterator<Item = (Stage, &Mark)> {
        let marks = [&self.since, &self.deprecated, &self.removed];
        Stage::ALL
            .into_iter()
            .zip(marks)
            .filter_map(|(stage, mark)| Some((stage, mark.as_ref()?)))
    }
}

/// What a date must look like, for the message of one that does not.
const DATE_FORM: &str = "a date like 2026-11-01 (a TOML date or a string YYYY-MM-DD)";

/// A day as the front matter writes it: a TOML local date, or a string
/// `YYYY-MM-DD`; both read by the `toml` crate, which knows the calendar.
fn day<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Date, D::Error> {
    struct Day;
    impl<'de> Visitor<'de> for Day {
        type Value = Date;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(DATE_FORM)
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<Date, E> {
            let written = text
                .parse()
                .map_err(|_| E::custom(format!("`{text}` is not a day: expected {DATE_FORM}")))?;
            local_date(written).map_err(E::custom)
        }
        /// A TOML date, which the `toml` crate gives as a map.
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Date, A::Error> {
            let written = Datetime::deserialize(MapAccessDeserializer::new(map))?;
            local_date(written).map_err(de::Error::custom)
        }
    }
    deserializer.deserialize_any(Day)
}

/// A version (`check_version`).
const VERSION: &str = r"^[0-9]+(\.[0-9]+)*(-[A-Za-z0-9.]+)?$";

/// A day, as editors' TOML tools give a date to a schema: a string.
fn day_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "string",
        "format": "date",
        "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
    })
}

/// The day of a TOML date without a time.
fn local_date(written: Datetime) -> Result<Date, String> {
    let Datetime {
        date: Some(date),
        time: None,
        offset: None,
    } = written
    else {
        return Err(format!("`{written}` has a time: expected {DATE_FORM}"));
    };
    Month::try_from(date.month)
        .and_then(|month| Date::from_calendar_date(i32::from(date.year), month, date.day))
        .map_err(|_| format!("`{written}` is not a day: expected {DATE_FORM}"))
}

/// `since`: the version of the library the method came in, and its date.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a table like { version = \"1.2\", date = 2025-03-01 }"
)]
pub(super) struct Since {
    /// A version of the library: numbers joined by dots, optionally
    /// followed by - and a label (3.0-beta.1).
    #[schemars(regex(pattern = VERSION))]
    version: String,
    /// The day, as a TOML local date (2026-11-01) or a string YYYY-MM-DD.
    #[serde(deserialize_with = "day")]
    #[schemars(schema_with = "day_schema")]
    date: Date,
}

/// `since`, if given, read as a [`Since`]: a mark without a `use`.
pub(super) fn since<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Mark>, D::Error> {
    let since = Option::<Since>::deserialize(deserializer)?;
    Ok(since.map(|Since { version, date }| Mark {
        version,
        date,
        successor: None,
    }))
}

/// The marks of `entry`, each checked: a version's form, marks dated in
/// the order they happen, a `use` that could name another method.
pub(super) fn check(check: &mut Check, entry: &Entry) {
    let mut earlier: Option<(Stage, Date)> = None;
    for (stage, mark) in entry.marks() {
        let field = stage.field();
        check_version(check, &format!("{field}.version"), &mark.version);
        if let Some((before, date)) = earlier.filter(|(_, date)| mark.date < *date) {
            check.fail(
                &format!("{field}.date"),
                format!(
                    "{} is before the date of `{}` ({date}): the marks follow each other in time",
                    mark.date,
                    before.field()
                ),
            );
        }
        earlier = Some((stage, mark.date));
        if let Some(successor) = &mark.successor {
            let field = format!("{field}.use");
            if !is_key(successor) {
                check.fail(
                    &field,
                    format!("`{successor}` is not a method's key (^[a-z]+$)"),
                );
            } else if *successor == entry.key {
                check.fail(
                    &field,
                    "names the method itself: name the method to use instead",
                );
            }
        }
    }
}

/// A version: numbers joined by dots (`2`, `2.0`, `2.6.0`), optionally
/// followed by `-` and a label of letters, digits and dots (`3.0-beta.1`).
fn check_version(check: &mut Check, field: &str, version: &str) {
    let (numbers, label) = version
        .split_once('-')
        .map_or((version, None), |(numbers, label)| (numbers, Some(label)));
    let numbered = numbers
        .split('.')
        .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let labelled = label.is_none_or(|label| {
        !label.is_empty()
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.')
    });
    if !(numbered && labelled) {
        check.fail(
            field,
            format!("`{version}` is not a version like `2.0` or `3.0-beta.1`"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_days_of_the_calendar() {
        let read = |text: &str| {
            day(serde::de::value::StrDeserializer::<serde::de::value::Error>::new(text)).ok()
        };
        assert_eq!(
            read("2024-02-29").map(|d| d.to_string()),
            Some("2024-02-29".to_string())
        );
        assert_eq!(read("2000-02-29").map(|d| d.day()), Some(29));
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2026-13-01",
            "2026-00-10",
            "2026-04-31",
            "2026-1-01",
            "26-01-01",
            "2026-01-01T00:00",
            "2026-01-01-",
            "",
        ] {
            assert_eq!(read(bad), None, "{bad}");
        }
    }

    #[test]
    fn versions_are_numbers_and_a_label() {
        let mut errors = Vec::new();
        let mut check = Check::new("f.md", &mut errors);
        for good in ["2", "2.0", "2.6.0", "3.0-beta.1", "10.20-rc1"] {
            check_version(&mut check, good, good);
        }
        assert!(errors.is_empty(), "{errors:?}");
        let mut check = Check::new("f.md", &mut errors);
        let bad = [
            "",
            "v2",
            "2.",
            ".2",
            "2..0",
            "2.0-",
            "2.0 beta",
            "2.0-beta!",
        ];
        for bad in bad {
            check_version(&mut check, bad, bad);
        }
        assert_eq!(errors.len(), bad.len(), "{errors:?}");
    }
}
