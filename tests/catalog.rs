//! Every entry, as served, against the specification's catalog (section 2.5).

use crate::catalog_facts::FACTS;
use crate::support::start_server;
use serde_json::Value;

fn check_entry(entry: &Value, fact: &crate::catalog_facts::Fact) {
    let key = fact.key;
    assert_eq!(entry["key"], key);
    assert_eq!(entry["name"], key);
    let description = entry["description"].as_str().expect("description");
    assert!(
        !description.is_empty() && !description.contains('\n'),
        "{key}"
    );
    assert_eq!(
        entry["desc"], description,
        "{key}: desc repeats description"
    );
    assert_eq!(entry["url"], format!("/api/{key}"));
    assert_eq!(
        entry["documentation_url"],
        format!("{}/api/{key}", &refserve::table::production().base_url)
    );

    let signature: Vec<&str> = match &entry["signature"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => {
            assert!(many.len() > 1, "{key}: an array only for overloads");
            many.iter().map(|s| s.as_str().expect("string")).collect()
        }
        other => panic!("{key}: signature {other}"),
    };
    assert_eq!(signature, fact.signatures, "{key}");

    let labels = |object: &Value| -> Vec<String> {
        let object = object.as_object().expect("parameters object");
        assert!(
            object
                .values()
                .all(|d| d.as_str().is_some_and(|d| !d.is_empty())),
            "{key}"
        );
        object.keys().cloned().collect()
    };
    match (&entry["parameters"], fact.labels) {
        (Value::Null, []) => assert!(entry.get("parameters").is_none(), "{key}: absent, not null"),
        (Value::Object(_), [one]) => assert_eq!(labels(&entry["parameters"]), *one, "{key}"),
        (Value::Array(lists), many) if many.len() > 1 => {
            assert_eq!(lists.len(), many.len(), "{key}: one object per signature");
            for (list, expected) in lists.iter().zip(many) {
                assert_eq!(labels(list), *expected, "{key}");
            }
        }
        (other, _) => panic!("{key}: parameters {other}"),
    }

    match fact.returns_type {
        Some(ty) => {
            let returns = entry["returns"].as_str().expect("returns");
            assert!(returns.starts_with(&format!("{ty} ")), "{key}: {returns}");
        }
        None => assert!(entry.get("returns").is_none(), "{key} has no returns"),
    }
    assert_eq!(entry.get("note").is_some(), fact.has_note, "{key}: note");
    if let Some(note) = entry.get("note") {
        assert!(note.as_str().is_some_and(|n| !n.is_empty()));
    }
}

#[tokio::test]
async fn the_collection_holds_the_specifications_entries_in_catalog_order() {
    let server = start_server().await;
    let reply = server.get("/api/reference.json", &[]).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), "application/json");
    let json = reply.json();
    assert_eq!(json["meta"]["count"], FACTS.len());
    let data = json["data"].as_array().expect("data array");
    let keys: Vec<&str> = data
        .iter()
        .map(|e| e["key"].as_str().expect("key"))
        .collect();
    let expected: Vec<&str> = FACTS.iter().map(|f| f.key).collect();
    assert_eq!(keys, expected);
    for (entry, fact) in data.iter().zip(&FACTS) {
        check_entry(entry, fact);
    }
}

#[tokio::test]
async fn every_entry_is_served_alone_as_in_the_collection() {
    let server = start_server().await;
    let collection = server.get("/api/reference.json", &[]).await.json();
    for (i, fact) in FACTS.iter().enumerate() {
        let reply = server
            .get(&format!("/api/reference/{}.json", fact.key), &[])
            .await;
        assert_eq!(reply.status, 200, "{}", fact.key);
        let json = reply.json();
        assert_eq!(json.as_object().map(|o| o.len()), Some(1), "only `data`");
        check_entry(&json["data"], fact);
        assert_eq!(json["data"], collection["data"][i], "{}", fact.key);
    }
}

#[tokio::test]
async fn the_entries_without_optional_fields() {
    let server = start_server().await;
    let raw = server.get("/api/reference/raw.json", &[]).await.json();
    assert!(raw["data"].get("returns").is_none());
    for key in ["debug", "log", "last", "info"] {
        let entry = server
            .get(&format!("/api/reference/{key}.json"), &[])
            .await
            .json();
        assert!(entry["data"].get("parameters").is_none(), "{key}");
    }
}

#[tokio::test]
async fn notes_carry_only_code_tags() {
    let server = start_server().await;
    let collection = server.get("/api/reference.json", &[]).await.json();
    for entry in collection["data"].as_array().expect("data") {
        let Some(note) = entry["note"].as_str() else {
            continue;
        };
        let stripped = note.replace("<code>", "").replace("</code>", "");
        assert!(!stripped.contains('<'), "{note}");
    }
}
