//! The media types refserve serves, defined once: the pipeline stores each
//! body with one, `Content-Type` is written from it, and the server
//! negotiates `Accept` against it (`negotiate`).

/// A media type the server offers, split for matching against `Accept`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MediaType {
    /// The top-level type, lowercase: `application`.
    pub kind: &'static str,
    /// The subtype, lowercase: `json`.
    pub subtype: &'static str,
    /// The value of the `charset` parameter the representation is sent with,
    /// if any (`utf-8` is implied when there is none).
    pub charset: Option<&'static str>,
    /// Further parameters sent in `Content-Type` (`; profile="…"`), not
    /// negotiated.
    pub extra: &'static str,
}

impl MediaType {
    /// A type sent without parameters.
    const fn bare(kind: &'static str, subtype: &'static str) -> MediaType {
        MediaType {
            kind,
            subtype,
            charset: None,
            extra: "",
        }
    }

    /// A text type sent with `charset=utf-8`.
    const fn text(subtype: &'static str) -> MediaType {
        MediaType {
            charset: Some("utf-8"),
            ..MediaType::bare("text", subtype)
        }
    }

    /// `application/json` (UTF-8 by definition, RFC 8259: no charset parameter).
    pub const JSON: MediaType = MediaType::bare("application", "json");
    /// `text/html; charset=utf-8`.
    pub const HTML: MediaType = MediaType::text("html");
    /// `text/markdown; charset=utf-8` (RFC 7763).
    pub const MARKDOWN: MediaType = MediaType::text("markdown");
    /// `text/plain; charset=utf-8`.
    pub const TEXT: MediaType = MediaType::text("plain");
    /// `application/xml` (RFC 7303; the document declares its encoding).
    pub const XML: MediaType = MediaType::bare("application", "xml");
    /// `application/atom+xml` (RFC 4287; the document declares its encoding).
    pub const ATOM: MediaType = MediaType::bare("application", "atom+xml");
    /// `image/svg+xml`.
    pub const SVG: MediaType = MediaType::bare("image", "svg+xml");
    /// `image/vnd.microsoft.icon`, the ICO format's registered type.
    pub const ICO: MediaType = MediaType::bare("image", "vnd.microsoft.icon");
    /// `application/octet-stream`: bytes for a program (the compression dictionary).
    pub const OCTET_STREAM: MediaType = MediaType::bare("application", "octet-stream");
    /// `application/linkset+json` with the API catalog profile (RFC 9264, RFC 9727).
    pub const LINKSET: MediaType = MediaType {
        extra: "; profile=\"https://www.rfc-editor.org/info/rfc9727\"",
        ..MediaType::bare("application", "linkset+json")
    };
    /// `application/mcp-server-card+json`, the MCP server card's (SEP-2127).
    pub const SERVER_CARD: MediaType = MediaType::bare("application", "mcp-server-card+json");

    /// `type/subtype`, without parameters (as a link's `type` names it).
    pub fn essence(&self) -> String {
        format!("{}/{}", self.kind, self.subtype)
    }

    /// The `Content-Type` value.
    pub fn content_type(&self) -> String {
        let charset = self
            .charset
            .map(|c| format!("; charset={c}"))
            .unwrap_or_default();
        format!("{}/{}{charset}{}", self.kind, self.subtype, self.extra)
    }
}

#[cfg(test)]
mod tests {
    use super::MediaType;

    #[test]
    fn content_types_are_written_with_their_parameters() {
        assert_eq!(MediaType::JSON.content_type(), "application/json");
        assert_eq!(
            MediaType::MARKDOWN.content_type(),
            "text/markdown; charset=utf-8"
        );
        assert_eq!(
            MediaType::LINKSET.content_type(),
            "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\""
        );
    }
}
