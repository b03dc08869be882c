//! The agents' discovery documents as resources (`render_discovery.rs`
//! writes them): the Agent Skills index and its skill, and the MCP server
//! card, each at the path and in the media type its draft asks for.

use super::{document, markdown_body, Body, Resource};
use crate::address::Address;
use crate::content::Editions;
use crate::media::MediaType;
use crate::render_discovery;

/// The index (`application/json`, as the RFC says), the skill it lists
/// (`text/markdown`) and the server card: its own type first, then the
/// same bytes as `application/json` for a client that asks for JSON alone
/// (the draft has the server echo the type negotiated).
pub(crate) fn resources(editions: &Editions) -> Vec<Resource> {
    let catalog = editions.source();
    // The index's digest is of these very bytes.
    let skill = render_discovery::skill(editions);
    let index = render_discovery::skills_index(catalog, &skill);
    let card = render_discovery::server_card(catalog);
    vec![
        document(
            Address::SkillsIndex,
            vec![Body::new(MediaType::JSON, index)],
        ),
        document(
            Address::Skill(&render_discovery::skill_name(catalog)),
            vec![markdown_body(MediaType::MARKDOWN, skill)],
        ),
        document(
            Address::ServerCard,
            vec![
                Body::new(MediaType::SERVER_CARD, card.clone()),
                Body::new(MediaType::JSON, card),
            ],
        ),
    ]
}
