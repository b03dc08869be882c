//! Who reads: the class of client a request comes from, one of a fixed
//! set, decided from its `User-Agent` by the table below (and, for `/mcp`,
//! by the endpoint: whoever speaks MCP is an MCP client). A class is never
//! a value taken from the request, so the metrics' series stay the fixed
//! set whatever clients send.
//!
//! The table names the product each client documents (`Name` of its
//! `Name/version` token), matched as written (case and all). Agents and
//! crawlers send `Mozilla/5.0` as browsers do, so the first other product
//! of the table a header names decides, and `Mozilla` alone means a
//! browser; a header that names none is `other`. A connection remembers
//! the class of the last header it was sent ([`Remembered`]): clients send
//! the same one with every request.

use refserve_core::address::{Address, Localized};
use refserve_core::media::MediaType;

/// A class of client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClientClass {
    /// A person's web browser.
    Browser,
    /// An AI assistant fetching a page because a person asked it to.
    AiAssistant,
    /// A crawler gathering pages for an AI model or an AI answer engine.
    AiCrawler,
    /// A search engine's crawler.
    SearchCrawler,
    /// A client of `/mcp`, the Model Context Protocol endpoint.
    McpClient,
    /// A command-line tool or an HTTP library.
    Tool,
    /// Anything else, no `User-Agent` included.
    #[default]
    Other,
}

impl ClientClass {
    /// Every class, in the order the metrics list them (and count them by,
    /// `class as usize`).
    pub const ALL: [ClientClass; 7] = [
        ClientClass::Browser,
        ClientClass::AiAssistant,
        ClientClass::AiCrawler,
        ClientClass::SearchCrawler,
        ClientClass::McpClient,
        ClientClass::Tool,
        ClientClass::Other,
    ];

    /// Its label in the metrics and the access log.
    pub const fn label(self) -> &'static str {
        match self {
            ClientClass::Browser => "browser",
            ClientClass::AiAssistant => "ai-assistant",
            ClientClass::AiCrawler => "ai-crawler",
            ClientClass::SearchCrawler => "search-crawler",
            ClientClass::McpClient => "mcp-client",
            ClientClass::Tool => "tool",
            ClientClass::Other => "other",
        }
    }

    /// The class of a client that sent `user_agent` (`None`: no header):
    /// that of the first product of [`AGENTS`] it names but `Mozilla`,
    /// else [`ClientClass::Browser`] when it names `Mozilla`, else
    /// [`ClientClass::Other`]. Each product's name is read back from the
    /// `/` before its version.
    pub fn of(user_agent: Option<&[u8]>) -> ClientClass {
        let Some(user_agent) = user_agent else {
            return ClientClass::Other;
        };
        let mut class = ClientClass::Other;
        for slash in memchr::memchr_iter(b'/', user_agent) {
            // At most one byte more than the longest product: a name
            // that fills it is longer than any, and matches none.
            let before = &user_agent[slash.saturating_sub(LONGEST + 1)..slash];
            let start = before
                .iter()
                .rposition(|&b| matches!(b, b' ' | b'(' | b';' | b','))
                .map_or(0, |separator| separator + 1);
            match product(&before[start..]) {
                Some(ClientClass::Browser) => class = ClientClass::Browser,
                Some(found) => return found,
                None => {}
            }
        }
        class
    }
}

/// The class of the last `User-Agent` a connection sent: a client sends
/// the same one on every request, and it is read once.
#[derive(Debug, Default)]
pub(crate) struct Remembered {
    /// The header, when no longer than [`REMEMBERED`].
    agent: Vec<u8>,
    /// Its class.
    class: ClientClass,
}

/// The longest `User-Agent` a connection remembers (browsers send about
/// 120 bytes).
const REMEMBERED: usize = 256;

impl Remembered {
    /// The class of a client that sent `user_agent`, as
    /// [`ClientClass::of`].
    pub(crate) fn class(&mut self, user_agent: Option<&[u8]>) -> ClientClass {
        let Some(agent) = user_agent else {
            return ClientClass::Other;
        };
        if agent == self.agent.as_slice() {
            return self.class;
        }
        let class = ClientClass::of(Some(agent));
        if agent.len() <= REMEMBERED {
            self.agent.clear();
            self.agent.extend_from_slice(agent);
            self.class = class;
        }
        class
    }
}

/// What a request read, as the metrics count it by client class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// An HTML page.
    Html,
    /// A Markdown page or twin.
    Markdown,
    /// A JSON document.
    Json,
    /// `/mcp`.
    Mcp,
    /// `/search`'s answers, in any form.
    Search,
    /// `llms.txt` or `llms-full.txt`, in any language.
    Llms,
    /// Anything else: discovery files, icons, the sitemap, errors but
    /// those in the forms above.
    Other,
}

impl Read {
    /// Every kind, in the order the metrics list them (and count them by,
    /// `read as usize`).
    pub const ALL: [Read; 7] = [
        Read::Html,
        Read::Markdown,
        Read::Json,
        Read::Mcp,
        Read::Search,
        Read::Llms,
        Read::Other,
    ];

    /// Its label in the metrics.
    pub const fn label(self) -> &'static str {
        match self {
            Read::Html => "html",
            Read::Markdown => "markdown",
            Read::Json => "json",
            Read::Mcp => "mcp",
            Read::Search => "search",
            Read::Llms => "llms",
            Read::Other => "other",
        }
    }

    /// What a request for `path` answered in `media_type` read (an
    /// `llms.txt` is plain text, as `robots.txt` is: its address tells).
    pub(crate) fn of(path: &str, media_type: &MediaType) -> Read {
        match media_type.subtype {
            "html" => Read::Html,
            "markdown" => Read::Markdown,
            "json" => Read::Json,
            _ => match Localized::parse(path).map(|at| at.address) {
                Some(Address::Llms | Address::LlmsFull) => Read::Llms,
                _ => Read::Other,
            },
        }
    }
}

use ClientClass::{AiAssistant, AiCrawler, Browser, SearchCrawler, Tool};

/// The product tokens, each with its class and where it is documented.
const AGENTS: [(&str, ClientClass); 33] = [
    // OpenAI, "Overview of OpenAI Crawlers" (platform.openai.com/docs/bots):
    // ChatGPT-User fetches for a person; OAI-SearchBot indexes for ChatGPT's
    // search; GPTBot gathers training data.
    ("ChatGPT-User", AiAssistant),
    ("OAI-SearchBot", AiCrawler),
    ("GPTBot", AiCrawler),
    // Anthropic, "Does Anthropic crawl data from the web…" (its support
    // site): Claude-User for a person, Claude-SearchBot and ClaudeBot.
    ("Claude-User", AiAssistant),
    ("Claude-SearchBot", AiCrawler),
    ("ClaudeBot", AiCrawler),
    // Perplexity, "Perplexity Crawlers" (docs.perplexity.ai): Perplexity-User
    // for a person, PerplexityBot for its index.
    ("Perplexity-User", AiAssistant),
    ("PerplexityBot", AiCrawler),
    // Mistral, "Robots and crawlers" (docs.mistral.ai): MistralAI-User.
    ("MistralAI-User", AiAssistant),
    // Meta, "Meta Web Crawlers" (developers.facebook.com): the fetcher acts
    // for a person, the agent gathers for AI.
    ("meta-externalfetcher", AiAssistant),
    ("meta-externalagent", AiCrawler),
    // DuckDuckGo, "DuckAssistBot" (duckduckgo.com/duckduckgo-help-pages).
    ("DuckAssistBot", AiAssistant),
    // Common Crawl's CCBot (commoncrawl.org/ccbot), ByteDance's Bytespider,
    // Amazon's Amazonbot (developer.amazon.com/amazonbot), Apple's Applebot
    // comes below (search).
    ("CCBot", AiCrawler),
    ("Bytespider", AiCrawler),
    ("Amazonbot", AiCrawler),
    // Search engines: Google's crawlers (developers.google.com/search/docs/
    // crawling-indexing/overview-google-crawlers), Bing's
    // (bing.com/webmasters/help/which-crawlers-does-bing-use), Apple's
    // (support.apple.com/en-us/119829), DuckDuckGo's, Yandex's, Baidu's.
    ("Googlebot", SearchCrawler),
    ("bingbot", SearchCrawler),
    ("Applebot", SearchCrawler),
    ("DuckDuckBot", SearchCrawler),
    ("YandexBot", SearchCrawler),
    ("Baiduspider", SearchCrawler),
    // Tools and libraries, by their default User-Agent: curl
    // (curl.se/docs/manpage.html, `-A`), GNU Wget, Python's requests, httpx
    // and aiohttp, Go's net/http, node-fetch, axios, OkHttp, Java's
    // HttpClient, HTTPie.
    ("curl", Tool),
    ("Wget", Tool),
    ("python-requests", Tool),
    ("python-httpx", Tool),
    ("aiohttp", Tool),
    ("Go-http-client", Tool),
    ("node-fetch", Tool),
    ("axios", Tool),
    ("okhttp", Tool),
    ("Java-http-client", Tool),
    ("HTTPie", Tool),
    // Browsers: every one sends `Mozilla/5.0` first (MDN, "User-Agent"),
    // as most agents above do: it counts when no other product is named.
    ("Mozilla", Browser),
];

/// The class of the product named `name`, if [`AGENTS`] has it.
fn product(name: &[u8]) -> Option<ClientClass> {
    let candidates = BY_LENGTH.get(name.len())?;
    candidates
        .iter()
        .map_while(|&entry| AGENTS.get(usize::from(entry)))
        .find(|(token, _)| token.as_bytes() == name)
        .map(|&(_, class)| class)
}

/// The length of the longest product of [`AGENTS`].
const LONGEST: usize = {
    let mut longest = 0;
    let mut i = 0;
    while i < AGENTS.len() {
        if AGENTS[i].0.len() > longest {
            longest = AGENTS[i].0.len();
        }
        i += 1;
    }
    longest
};

/// The most products of [`AGENTS`] of one length.
const PER_LENGTH: usize = 4;

/// For each length, the indices in [`AGENTS`] of the products that long,
/// then `u8::MAX`: a name is compared with those alone.
const BY_LENGTH: [[u8; PER_LENGTH]; LONGEST + 1] = {
    let mut by_length = [[u8::MAX; PER_LENGTH]; LONGEST + 1];
    let mut i = 0;
    while i < AGENTS.len() {
        let slots = &mut by_length[AGENTS[i].0.len()];
        let mut slot = 0;
        while slots[slot] != u8::MAX {
            slot += 1; // past PER_LENGTH: the build fails, index out of bounds
        }
        slots[slot] = i as u8;
        i += 1;
    }
    by_length
};

#[cfg(test)]
mod tests {
    use super::*;

    fn class(user_agent: &str) -> ClientClass {
        ClientClass::of(Some(user_agent.as_bytes()))
    }

    #[test]
    fn agents_fetching_for_a_person_are_assistants_and_their_crawlers_crawlers() {
        let chatgpt = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; \
                       ChatGPT-User/1.0; +https://openai.com/bot)";
        assert_eq!(class(chatgpt), ClientClass::AiAssistant);
        let claude = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; \
                      Claude-User/1.0; +Claude-User@anthropic.com)";
        assert_eq!(class(claude), ClientClass::AiAssistant);
        let gptbot = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; \
                      GPTBot/1.1; +https://openai.com/gptbot)";
        assert_eq!(class(gptbot), ClientClass::AiCrawler);
        assert_eq!(class("ClaudeBot/1.0"), ClientClass::AiCrawler);
        let google = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
        assert_eq!(class(google), ClientClass::SearchCrawler);
    }

    #[test]
    fn browsers_tools_and_the_rest() {
        let chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                      Chrome/156.0.0.0 Safari/537.36";
        assert_eq!(class(chrome), ClientClass::Browser);
        assert_eq!(class("curl/8.14.1"), ClientClass::Tool);
        assert_eq!(class("python-httpx/0.28.1"), ClientClass::Tool);
        assert_eq!(class("h2load nghttp2/1.64.0"), ClientClass::Other);
        assert_eq!(class(""), ClientClass::Other);
        assert_eq!(ClientClass::of(None), ClientClass::Other);
        // Matched as documented, case and all: a label is never made up.
        assert_eq!(class("chatgpt-user"), ClientClass::Other);
    }

    #[test]
    fn a_connection_remembers_its_last_header_and_reads_a_new_one() {
        let mut remembered = Remembered::default();
        let gptbot = b"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)";
        assert_eq!(remembered.class(Some(gptbot)), ClientClass::AiCrawler);
        assert_eq!(remembered.class(Some(gptbot)), ClientClass::AiCrawler);
        assert_eq!(remembered.class(Some(b"curl/8.14.1")), ClientClass::Tool);
        assert_eq!(remembered.class(None), ClientClass::Other);
        assert_eq!(remembered.class(Some(b"")), ClientClass::Other);
        // Longer than it keeps: read every time, and the last kept stays.
        let long = [&b"Mozilla/5.0 "[..], &[b'x'; 300], b" ClaudeBot/1.0"].concat();
        assert_eq!(remembered.class(Some(&long)), ClientClass::AiCrawler);
        assert_eq!(remembered.class(Some(b"curl/8.14.1")), ClientClass::Tool);
        // A name longer than any product matches none, even if it ends in one.
        assert_eq!(
            remembered.class(Some(b"NotReallyGPTBot/1.0")),
            ClientClass::Other
        );
        assert_eq!(
            remembered.class(Some(b"x(GPTBot/1.0")),
            ClientClass::AiCrawler
        );
    }

    #[test]
    fn what_was_read_is_told_by_the_media_type_and_llms_txt_by_its_path() {
        assert_eq!(
            Read::of("/api/select.md", &MediaType::MARKDOWN),
            Read::Markdown
        );
        assert_eq!(Read::of("/", &MediaType::HTML), Read::Html);
        assert_eq!(
            Read::of("/api/reference.json", &MediaType::JSON),
            Read::Json
        );
        assert_eq!(
            Read::of("/zh-hans/llms-full.txt", &MediaType::TEXT),
            Read::Llms
        );
        assert_eq!(Read::of("/robots.txt", &MediaType::TEXT), Read::Other);
        assert_eq!(Read::of("/favicon.svg", &MediaType::SVG), Read::Other);
    }

    #[test]
    fn labels_are_the_fixed_set_in_order() {
        let labels: Vec<&str> = ClientClass::ALL.iter().map(|c| c.label()).collect();
        assert_eq!(
            labels,
            [
                "browser",
                "ai-assistant",
                "ai-crawler",
                "search-crawler",
                "mcp-client",
                "tool",
                "other"
            ]
        );
        for (index, class) in ClientClass::ALL.into_iter().enumerate() {
            assert_eq!(class as usize, index);
        }
        for (index, read) in Read::ALL.into_iter().enumerate() {
            assert_eq!(read as usize, index);
        }
    }
}
