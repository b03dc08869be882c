//! The page chrome of one language: every label the pages wear around
//! the content (headings such as "Parameters", table heads, the search
//! box, the notices of a translation), read from `chrome` in the
//! language's `language.json`. Every label is required: a language whose
//! file lacks one fails the build naming it. A label with places
//! (`{version}`) must have the same places as the source language's.

use super::fields::Check;
use serde::{Deserialize, Serialize};

/// The labels of one language, each documented by its English text.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Chrome {
    /// "Skip to content"
    pub skip_to_content: String,
    /// "Site"
    pub site_navigation: String,
    /// "Languages"
    pub languages: String,
    /// "Methods"
    pub methods: String,
    /// "Search the methods"
    pub search_label: String,
    /// "e.g. count rows"
    pub search_placeholder: String,
    /// "Search"
    pub search_button: String,
    /// "Read-only documentation"
    pub read_only: String,
    /// "This page as Markdown"
    pub as_markdown: String,
    /// The page actions' label: "Use this page with AI"
    pub page_actions: String,
    /// "View as Markdown"
    pub view_markdown: String,
    /// "Open in {app}" (ChatGPT, Claude, Perplexity)
    pub open_in: String,
    /// The prompt an assistant is opened with: "Read {url} so I can ask you about it."
    pub ask_prompt: String,
    /// "Use the whole reference in your assistant"
    pub use_with_assistant: String,
    /// Before the MCP server's address: "MCP server:"
    pub mcp_server: String,
    /// "Add to {app}" (Cursor, VS Code)
    pub add_to: String,
    /// Before Claude Code's command: "Claude Code, from a terminal:"
    pub add_by_command: String,
    /// "Changes"
    pub feed_title: String,
    /// "Table"
    pub table: String,
    /// "Quick start"
    pub quick_start: String,
    /// "List every method as JSON, then fetch one, then read its page as Markdown:"
    pub quick_start_text: String,
    /// "Endpoints"
    pub endpoints: String,
    /// "Method and path"
    pub endpoint_column: String,
    /// "Answer"
    pub answer_column: String,
    /// "Every method reference, in catalog order, with `meta.count`"
    pub endpoint_collection: String,
    /// "One method reference; `name` is lowercase, like `select`"
    pub endpoint_document: String,
    /// "The method's page: HTML, or Markdown with `Accept: text/markdown`"
    pub endpoint_page: String,
    /// "The method's page as Markdown"
    pub endpoint_twin: String,
    /// "The Model Context Protocol endpoint for agents (below)"
    pub endpoint_mcp: String,
    /// "Responses are compressed with Brotli or gzip when the client allows it, carry an `ETag` for revalidation, and errors come back as JSON with a `code`, a `message` and a `hint`."
    pub responses: String,
    /// "For agents: MCP"
    pub for_agents: String,
    /// "Agents that speak the Model Context Protocol can use `{mcp}` (Streamable HTTP, no session, no sign-in). Its tools: `search` finds the methods for a task asked in plain words, `get_method` gives one method's whole reference, `list_methods` all of them at a glance; every method page and `llms.txt` are resources. Most clients take an entry like this in their MCP settings:"
    pub mcp_text: String,
    /// "Machine-readable resources"
    pub machine_readable: String,
    /// "OpenAPI 3.1 description of the JSON endpoints"
    pub resource_openapi: String,
    /// "the whole reference as JSON"
    pub resource_collection: String,
    /// "index for AI agents"
    pub resource_llms: String,
    /// "the whole reference as one Markdown document"
    pub resource_llms_full: String,
    /// "sitemap of every page"
    pub resource_sitemap: String,
    /// "crawler policy"
    pub resource_robots: String,
    /// "Atom feed of the methods that came in, were deprecated or were removed"
    pub resource_feed: String,
    /// "API catalog (RFC 9727)"
    pub resource_api_catalog: String,
    /// "How to read it:"
    pub llms_how: String,
    /// "Every page has a Markdown twin: add `.md` to its path, or send `Accept: text/markdown`."
    pub llms_twin: String,
    /// "The same facts as JSON: `GET {collection}` for all methods, `GET {document}` for one (`name` is lowercase, like `select`)."
    pub llms_json: String,
    /// "Errors are JSON objects with `error.code`, `error.message` and `error.hint`."
    pub llms_errors: String,
    /// "Send `Accept-Encoding: br` or `gzip` for smaller responses, and `If-None-Match` with the `ETag` you got to revalidate."
    pub llms_compression: String,
    /// "Over MCP: add `{mcp}` as a Streamable HTTP server; its tools `search`, `get_method` and `list_methods` answer from the same reference."
    pub llms_mcp: String,
    /// "[OpenAPI description]({openapi}): the JSON endpoints, their schemas and errors"
    pub llms_openapi: String,
    /// "[All method references]({collection}): one JSON document"
    pub llms_collection: String,
    /// "[API catalog]({api_catalog}): RFC 9727 linkset"
    pub llms_api_catalog: String,
    /// "[Changes]({feed}): Atom feed of the methods that came in, were deprecated or were removed, with their versions and days"
    pub llms_feed: String,
    /// "MCP endpoint: `{mcp}`, the Model Context Protocol over Streamable HTTP (POST only, so not a link): tools `search`, `get_method`, `list_methods`"
    pub llms_mcp_endpoint: String,
    /// "Every page has an address in each language (`{own}`); the address without one (`{negotiated}`) answers in the language `Accept-Language` prefers. Each language has its own index:"
    pub llms_languages: String,
    /// "the index for agents in this language, linking its pages; [its index of methods]({methods})"
    pub llms_language: String,
    /// "[Full reference]({full}): every method page in one Markdown document"
    pub llms_full: String,
    /// "[Homepage]({home}): overview and quick start"
    pub llms_home: String,
    /// "{title}: changes"
    pub feed_name: String,
    /// "The methods that came into the library, were deprecated or were removed, with their versions and days, newest first."
    pub feed_subtitle: String,
    /// "{key} available since {version}"
    pub feed_since_title: String,
    /// "The method {key} is available since version {version} of the library ({date})."
    pub feed_since: String,
    /// "{key} deprecated in {version}"
    pub feed_deprecated_title: String,
    /// "The method {key} is deprecated since version {version} ({date}){instead}."
    pub feed_deprecated: String,
    /// "{key} removed in {version}"
    pub feed_removed_title: String,
    /// "The method {key} was removed in version {version} ({date}){instead}."
    pub feed_removed: String,
    /// "; use {successor} instead"
    pub feed_instead: String,
    /// "; it has no successor"
    pub feed_no_successor: String,
    /// "Every documented method of the library, grouped by purpose, with a one-line description."
    pub methods_description: String,
    /// "All {count} documented methods, grouped by purpose. Each page has the call signatures, the parameters, the return value and examples; each is also [JSON]({json})."
    pub methods_intro: String,
    /// "Signature"
    pub signature: String,
    /// "Signatures"
    pub signatures: String,
    /// "Parameters"
    pub parameters: String,
    /// "Parameter"
    pub parameter: String,
    /// "Type"
    pub type_column: String,
    /// "Required"
    pub required: String,
    /// "Description"
    pub description: String,
    /// "yes"
    pub required_yes: String,
    /// "optional"
    pub required_optional: String,
    /// "Returns"
    pub returns: String,
    /// "{type}: {meaning}", the line under it
    pub returns_line: String,
    /// "Note"
    pub note: String,
    /// "Examples"
    pub examples: String,
    /// "See also"
    pub see_also: String,
    /// "JSON"
    pub json: String,
    /// "Previous"
    pub previous: String,
    /// "Next"
    pub next: String,
    /// "All methods"
    pub all_methods: String,
    /// "**Deprecated** since version {version} ({date})"
    pub deprecated_since: String,
    /// ": use {method} instead"
    pub use_instead: String,
    /// "Available since version {version} ({date})."
    pub available_since: String,
    /// "Deprecated in {version}"
    pub deprecated_in: String,
    /// ": use {method}"
    pub use_successor: String,
    /// "Did you mean {method}?"
    pub did_you_mean: String,
    /// "Go to {method}."
    pub go_to: String,
    /// "Error code: {code}."
    pub error_code: String,
    /// "Back to the method reference"
    pub back_to_reference: String,
    /// "This translation may be out of date: the English text has changed since it was written. [Read the English page]({url})."
    pub outdated: String,
    /// "This method is not translated yet: it is shown in English. [Read it on the English pages]({url})."
    pub untranslated: String,
    /// "Search"
    pub search_title: String,
    /// "Search: {query}"
    pub search_page_title: String,
    /// "The methods of the reference that match a query, best first."
    pub search_description: String,
    /// "Search results"
    pub search_results: String,
    /// "Methods matching “{query}”: {found} of {count}, best first."
    pub search_found: String,
    /// "No method matches “{query}”."
    pub search_nothing: String,
    /// "Did you mean {first} or {second}?"
    pub search_suggestions: String,
    /// "Search looks for the query's words in the methods' names, descriptions, signatures, parameters, return values, notes, examples and common synonyms. Try other words, or pick one of the {count} methods:"
    pub search_how: String,
    /// "Search needs the reference's own server, which ranks the {count} methods for the words of a query; this copy of the reference is a set of files, which cannot. Every method is listed, grouped by purpose and with a line on what it does, in the [index of methods]({index})."
    pub search_exported: String,
    /// "Search needs the reference's own server; the index lists every method."
    pub search_exported_description: String,
    /// "Matched "
    pub why_start: String,
    /// "“{word}” in {field}"
    pub why_found: String,
    /// "“{word}” (read as “{read_as}”) in {field}"
    pub why_read_as: String,
    /// "; "
    pub why_separator: String,
    /// "."
    pub why_end: String,
    /// "its name"
    pub field_name: String,
    /// "a word for what it does"
    pub field_synonym: String,
    /// "its group"
    pub field_group: String,
    /// "its description"
    pub field_description: String,
    /// "its signature"
    pub field_signature: String,
    /// "a parameter"
    pub field_parameter: String,
    /// "its return value"
    pub field_returns: String,
    /// "its note"
    pub field_note: String,
    /// "an example's title"
    pub field_example: String,
    /// "an example's code"
    pub field_code: String,
    /// MCP's `search`, before the methods found: "Methods for the query, best first (get_method gives one whole):"
    pub mcp_found: String,
    /// MCP's `search`, when nothing is found: "No method matches the query. Search looks for its words in the methods' names, descriptions, signatures, parameters, return values, notes, examples and the names other libraries use; try other words, or pick from these (get_method gives one whole, list_methods all with their descriptions): {methods}."
    pub mcp_nothing: String,
    /// MCP's `list_methods`, before the methods: "The {count} documented methods:"
    pub mcp_methods: String,
    /// MCP's `list_methods`, after them: "get_method gives one method's whole reference."
    pub mcp_methods_end: String,
    /// After an MCP list's description of a method that is not translated: " (not translated yet: in English)"
    pub mcp_untranslated: String,
    /// After an MCP list's description of a method whose translation is outdated: " (its translation may be out of date)"
    pub mcp_outdated: String,
}

impl Chrome {
    /// Each label `(name, text)`, in the file's order.
    fn labels(&self) -> Vec<(String, String)> {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(map)) => map
                .into_iter()
                .map(|(name, text)| (name, text.as_str().unwrap_or_default().to_string()))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Every label filled, on one line (spaces at its ends are its own:
    /// `Matched `).
    pub(super) fn check(&self, check: &mut Check) {
        for (name, text) in self.labels() {
            let field = format!("chrome.{name}");
            if check.filled(&field, &text) && text.contains(['\n', '\r']) {
                check.fail(&field, "must be one line");
            }
        }
    }

    /// Each label of `ours` has the places (`{version}`) of the same label
    /// of `source`, no more, no fewer.
    pub(super) fn check_places(ours: &Chrome, source: &Chrome, check: &mut Check) {
        for ((name, ours), (_, theirs)) in ours.labels().into_iter().zip(source.labels()) {
            let (ours, theirs) = (places(&ours), places(&theirs));
            if ours != theirs {
                check.fail(
                    &format!("chrome.{name}"),
                    format!(
                        "must have the places of the source's label: {}",
                        theirs.join(" ")
                    ),
                );
            }
        }
    }
}

/// The places of `text` (`{version}`, `{url}`), sorted.
fn places(text: &str) -> Vec<&str> {
    let mut places: Vec<&str> = text
        .match_indices('{')
        .filter_map(|(at, _)| {
            let end = text[at..].find('}')?;
            let name = &text[at + 1..at + end];
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c == '_')
                .then(|| &text[at..=at + end])
        })
        .collect();
    places.sort_unstable();
    places
}

/// `label` with each place `{name}` of `values` filled in.
pub fn fill(label: &str, values: &[(&str, &str)]) -> String {
    values
        .iter()
        .fold(label.to_string(), |text, (name, value)| {
            text.replace(&format!("{{{name}}}"), value)
        })
}
