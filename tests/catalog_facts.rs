//! Section 2.5 of the specification as data: what every served entry must say.

pub struct Fact {
    pub key: &'static str,
    pub signatures: &'static [&'static str],
    /// One list of parameter labels per signature, in order; empty slice when the entry has no `parameters` field.
    pub labels: &'static [&'static [&'static str]],
    /// The bracketed return type, e.g. "[array]"; None for raw.
    pub returns_type: Option<&'static str>,
    /// Whether the entry carries a `note` field.
    pub has_note: bool,
}

pub const FACTS: [Fact; 24] = [
    Fact {
        key: "select",
        signatures: &[
            "select($table, $columns)",
            "select($table, $columns, $where)",
            "select($table, $join, $columns, $where)",
        ],
        labels: &[
            &["table [string]", "columns [array/string]"],
            &[
                "table [string]",
                "columns [array/string]",
                "where [array] (optional)",
            ],
            &[
                "table [string]",
                "join [array]",
                "columns [array/string]",
                "where [array] (optional)",
            ],
        ],
        returns_type: Some("[array]"),
        has_note: true,
    },
    Fact {
        key: "insert",
        signatures: &["insert($table, $values)"],
        labels: &[&["table [string]", "values [array]"]],
        returns_type: Some("[handle]"),
        has_note: false,
    },
    Fact {
        key: "update",
        signatures: &["update($table, $data, $where)"],
        labels: &[&["table [string]", "data [array]", "where [array] (optional)"]],
        returns_type: Some("[handle]"),
        has_note: true,
    },
    Fact {
        key: "delete",
        signatures: &["delete($table, $where)"],
        labels: &[&["table [string]", "where [array]"]],
        returns_type: Some("[handle]"),
        has_note: false,
    },
    Fact {
        key: "replace",
        signatures: &["replace($table, $columns, $where)"],
        labels: &[&[
            "table [string]",
            "columns [array]",
            "where [array] (optional)",
        ]],
        returns_type: Some("[handle]"),
        has_note: true,
    },
    Fact {
        key: "create",
        signatures: &["create($table, $columns, $options)"],
        labels: &[&[
            "table [string]",
            "columns [array]",
            "options [array/string] (optional)",
        ]],
        returns_type: Some("[handle]"),
        has_note: false,
    },
    Fact {
        key: "drop",
        signatures: &["drop($table)"],
        labels: &[&["table [string]"]],
        returns_type: Some("[handle]"),
        has_note: false,
    },
    Fact {
        key: "get",
        signatures: &[
            "get($table, $columns, $where)",
            "get($table, $join, $columns, $where)",
        ],
        labels: &[
            &[
                "table [string]",
                "columns [string/array]",
                "where [array] (optional)",
            ],
            &[
                "table [string]",
                "join [array]",
                "columns [string/array]",
                "where [array] (optional)",
            ],
        ],
        returns_type: Some("[mixed]"),
        has_note: false,
    },
    Fact {
        key: "has",
        signatures: &["has($table, $where)", "has($table, $join, $where)"],
        labels: &[
            &["table [string]", "where [array]"],
            &["table [string]", "join [array]", "where [array]"],
        ],
        returns_type: Some("[bool]"),
        has_note: false,
    },
    Fact {
        key: "count",
        signatures: &[
            "count($table, $where)",
            "count($table, $join, $column, $where)",
        ],
        labels: &[
            &["table [string]", "where [array] (optional)"],
            &[
                "table [string]",
                "join [array]",
                "column [string]",
                "where [array] (optional)",
            ],
        ],
        returns_type: Some("[int]"),
        has_note: true,
    },
    Fact {
        key: "max",
        signatures: &[
            "max($table, $column, $where)",
            "max($table, $join, $column, $where)",
        ],
        labels: &[
            &[
                "table [string]",
                "column [string]",
                "where [array] (optional)",
            ],
            &[
                "table [string]",
                "join [array]",
                "column [string]",
                "where [array] (optional)",
            ],
        ],
        returns_type: Some("[mixed]"),
        has_note: false,
    },
    Fact {
        key: "min",
        signatures: &[
            "min($table, $column, $where)",
            "min($table, $join, $column, $where)",
        ],
        labels: &[
            &[
                "table [string]",
                "column [string]",
                "where [array] (optional)",
            ],
            &[
                "table [string]",
                "join [array]",
                "column [string]",
                "where [array] (optional)",
            ],
        ],
        returns_type: Some("[mixed]"),
        has_note: false,
    },
    Fact {
        key: "avg",
        signatures: &[
            "avg($table, $column, $where)",
            "avg($table, $join, $column, $where)",
        ],
        labels: &[
            &[
                "table [string]",
                "column [string]",
                "where [array] (optional)",
            ],
            &[
                "table [string]",
                "join [array]",
                "column [string]",
                "where [array] (optional)",
            ],
        ],
        returns_type: Some("[mixed]"),
        has_note: false,
    },
    Fact {
        key: "sum",
        signatures: &[
            "sum($table, $column, $where)",
            "sum($table, $join, $column, $where)",
        ],
        labels: &[
            &[
                "table [string]",
                "column [string]",
                "where [array] (optional)",
            ],
            &[
                "table [string]",
                "join [array]",
                "column [string]",
                "where [array] (optional)",
            ],
        ],
        returns_type: Some("[mixed]"),
        has_note: false,
    },
    Fact {
        key: "rand",
        signatures: &[
            "rand($table, $columns, $where)",
            "rand($table, $join, $columns, $where)",
        ],
        labels: &[
            &[
                "table [string]",
                "columns [string/array]",
                "where [array] (optional)",
            ],
            &[
                "table [string]",
                "join [array]",
                "columns [string/array]",
                "where [array] (optional)",
            ],
        ],
        returns_type: Some("[array]"),
        has_note: false,
    },
    Fact {
        key: "id",
        signatures: &["id($name)"],
        labels: &[&["name [string] (optional)"]],
        returns_type: Some("[string/null]"),
        has_note: true,
    },
    Fact {
        key: "query",
        signatures: &["query($query, $map)"],
        labels: &[&["query [string]", "map [array] (optional)"]],
        returns_type: Some("[handle]"),
        has_note: true,
    },
    Fact {
        key: "raw",
        signatures: &["Library::raw($query, $map)"],
        labels: &[&["query [string]", "map [array] (optional)"]],
        returns_type: None,
        has_note: true,
    },
    Fact {
        key: "quote",
        signatures: &["quote($string)"],
        labels: &[&["string [string]"]],
        returns_type: Some("[string]"),
        has_note: false,
    },
    Fact {
        key: "action",
        signatures: &["action($callback)"],
        labels: &[&["callback [callable]"]],
        returns_type: Some("[void]"),
        has_note: true,
    },
    Fact {
        key: "debug",
        signatures: &["debug()"],
        labels: &[],
        returns_type: Some("[Library]"),
        has_note: true,
    },
    Fact {
        key: "log",
        signatures: &["log()"],
        labels: &[],
        returns_type: Some("[array]"),
        has_note: true,
    },
    Fact {
        key: "last",
        signatures: &["last()"],
        labels: &[],
        returns_type: Some("[string]"),
        has_note: true,
    },
    Fact {
        key: "info",
        signatures: &["info()"],
        labels: &[],
        returns_type: Some("[array]"),
        has_note: false,
    },
];
