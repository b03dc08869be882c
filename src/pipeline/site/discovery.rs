//! The agents' discovery documents as resources (`render_discovery.rs`
//! writes them): the Agent Skills index and its skill, and the MCP server
//! card, each at the path and in the media type its draft asks for.

use super::{markdown_body, Body, Media, Resource, CACHE_CONTROL};
use crate::content::Catalog;
use crate::render_discovery::{self, SERVER_CARD_PATH, SKILLS_INDEX_PATH};

/// `application/mcp-server-card+json` (`render_discovery::SERVER_CARD_TYPE`).
const SERVER_CARD: Media = Media {
    kind: "application",
    subtype: "mcp-server-card+json",
    charset: None,
    extra: "",
};

/// The index (`application/json`, as the RFC says), the skill it lists
/// (`text/markdown`) and the server card: its own type first, then the
/// same bytes as `application/json` for a client that asks for JSON alone
/// (the draft has the server echo the type negotiated).
pub fn resources(catalog: &Catalog) -> Vec<Resource> {
    let resource = |id: &str, representations: Vec<Body>| Resource {
        id: id.to_string(),
        representations,
        cache_control: CACHE_CONTROL,
        error: None,
    };
    // The index's digest is of these very bytes.
    let skill = render_discovery::skill(catalog);
    let index = render_discovery::skills_index(catalog, &skill);
    let card = render_discovery::server_card(catalog);
    vec![
        resource(SKILLS_INDEX_PATH, vec![Body::new(Media::JSON, index)]),
        resource(
            &render_discovery::skill_path(catalog),
            vec![markdown_body(Media::MARKDOWN, skill)],
        ),
        resource(
            SERVER_CARD_PATH,
            vec![
                Body::new(SERVER_CARD, card.clone()),
                Body::new(Media::JSON, card),
            ],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_card_s_media_type_is_the_one_the_api_catalog_names() {
        let media = format!("{}/{}", SERVER_CARD.kind, SERVER_CARD.subtype);
        assert_eq!(media, render_discovery::SERVER_CARD_TYPE);
    }
}
