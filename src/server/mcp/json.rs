//! The pieces of JSON the server writes that serde's derives do not give:
//! a score with its three decimals ([`Score`]), and text echoed from a
//! request, escaped as the access log escapes it ([`Echoed`]). The third,
//! a method's stored members, is the table's (`refserve_core::mcp::Members`).

use crate::access_log::push_json_string;
use serde::ser::{Error as _, Serialize, Serializer};
use serde_json::value::RawValue;

/// A search score, written with three decimals (`1.500`, not `1.5`).
pub(crate) struct Score(pub f32);

impl Serialize for Score {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawValue::from_string(format!("{:.3}", self.0))
            .map_err(S::Error::custom)?
            .serialize(serializer)
    }
}

/// Text from the request (a query, an argument's name in a problem),
/// written as the access log writes it: besides what JSON requires, the
/// C1 controls, line separators and bidi controls are escaped, so that
/// no reader of the raw answer takes them for a line break or a reordering.
pub(crate) struct Echoed<'a>(pub &'a str);

impl Serialize for Echoed<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut json = String::with_capacity(self.0.len() + 2);
        push_json_string(&mut json, self.0);
        RawValue::from_string(json)
            .map_err(S::Error::custom)?
            .serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::{Echoed, Score};

    #[test]
    fn scores_keep_three_decimals_and_echoes_escape_as_the_log() {
        let written = serde_json::to_string(&(Score(1.5), Score(0.12345))).expect("serialises");
        assert_eq!(written, "[1.500,0.123]");
        let written = serde_json::to_string(&Echoed("a\u{2028}\"\u{85}\u{8}")).expect("serialises");
        assert_eq!(written, r#""a\u2028\"\u0085\u0008""#);
    }
}
