//! The agents' discovery documents as resources (`render_discovery.rs`
//! writes them): the Agent Skills index and its skill, and the MCP server
//! card, each at the path and in the media type its draft asks for.

use super::{markdown_body, Body, Media, Resource, CACHE_CONTROL};
use crate::content::Catalog;
use crate::render_discovery::{self, SERVER_CARD_MEDIA, SERVER_CARD_PATH, SKILLS_INDEX_PATH};

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
                Body::new(SERVER_CARD_MEDIA, card.clone()),
                Body::new(Media::JSON, card),
            ],
        ),
    ]
}
