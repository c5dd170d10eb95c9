use serde_json::{Value, json};

use super::*;

fn defs(names: &[&str]) -> Vec<Value> {
    names.iter().map(|n| json!({"type": "function", "function": {"name": n, "parameters": {}}})).collect()
}

fn read_with(content: &str, names: &[&str]) -> Reading {
    let tools = defs(names);
    read(content, &Offered::from_definitions(&tools))
}

const SHOP: &[&str] = &["web_search", "browser_navigate", "browser_snapshot", "browser_read_text", "memory_insert"];

fn known(name: &str, arguments: Value) -> TextCall {
    TextCall { name: name.to_owned(), arguments, known: true }
}

/// Every real output of `tests/fixtures/local-model-outputs/samples.json`
/// is read as its `expect` says.
#[test]
fn every_collected_local_model_output_is_read_as_expected() {
    let doc: Value =
        serde_json::from_str(include_str!("../../../tests/fixtures/local-model-outputs/samples.json")).unwrap();
    let samples = doc["samples"].as_array().unwrap();
    assert!(samples.len() >= 20, "{} samples", samples.len());
    for s in samples {
        let id = s["id"].as_str().unwrap();
        assert!(s["source"].as_str().unwrap().starts_with("https://"), "{id}: a source");
        assert!(["verbatim", "template", "described"].contains(&s["provenance"].as_str().unwrap()), "{id}");
        let names: Vec<&str> = s["offered"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
        let got = read_with(s["output"].as_str().unwrap(), &names);
        let expect = &s["expect"];
        let wanted = match expect["kind"].as_str().unwrap() {
            "calls" => Reading::Calls {
                prose: expect["prose"].as_str().unwrap().to_owned(),
                calls: expect["calls"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| known(c["name"].as_str().unwrap(), c["arguments"].clone()))
                    .collect(),
            },
            "answer" => Reading::Answer(expect["text"].as_str().unwrap().to_owned()),
            "unreadable" => {
                assert!(matches!(got, Reading::Unreadable { .. }), "{id}: {got:?}");
                continue;
            }
            other => panic!("{id}: unknown kind {other}"),
        };
        assert_eq!(got, wanted, "{id}");
    }
}

#[test]
fn answers_stay_answers() {
    let answers = [
        "Giá iPhone 15 128GB ở Thế Giới Di Động là 19.990.000 ₫, ở CellphoneS là 1.290.000 ₫ rẻ hơn cho bản cũ.",
        // A JSON product record in an answer: no call shape.
        "Đây là sản phẩm:\n```json\n{\"name\": \"Tai nghe Sony WH-1000XM5\", \"price\": \"7.490.000 ₫\"}\n```",
        "[{\"name\": \"Sony WH-1000XM5\", \"price\": 7490000}, {\"name\": \"AirPods Max\", \"price\": 12990000}]",
        "{\"name\": \"Alice\"}",
        // A call shape naming no offered tool (nor a near one), outside a marker.
        "Ví dụ: {\"name\": \"Nguyễn Văn A\", \"parameters\": {\"tuổi\": 30}}",
        // Naming a tool in prose, even with brackets.
        "Tôi đã dùng web_search để tìm, rồi browser_navigate tới trang của shop.",
        "Bạn có thể gọi web_search(query=\"giá\") nếu muốn tự tìm.",
        "[Shopee](https://shopee.vn/iphone-15) có giá 18.490.000 ₫.",
        // Code in an answer.
        "Đoạn mã:\n```python\nprint(web_search)\n```\nvà JSON `{\"a\": 1}`.",
        "```\n{\"order\": 123, \"status\": \"đã giao\"}\n```",
        "Kết quả: 3 [1] (nguồn)",
    ];
    for answer in answers {
        assert_eq!(read_with(answer, SHOP), Reading::Answer(answer.to_owned()), "{answer}");
    }
    // Thinking is taken out of an answer, whatever it holds.
    assert_eq!(
        read_with("<think>{\"name\": \"web_search\", \"arguments\": {}}</think>\nXong rồi.", SHOP),
        Reading::Answer("Xong rồi.".to_owned())
    );
    // Thinking alone is no answer (cut short, or the answer forgotten); nothing at all is.
    let Reading::Unreadable { why, .. } = read_with("<think>chưa xong", SHOP) else { panic!("unreadable") };
    assert!(why.contains("only thinking"), "{why}");
    assert_eq!(read_with(" \n", SHOP), Reading::Answer(String::new()));
    // Call markup with prose after it (a page quoted) is not run.
    let quoted = "Trang ghi: <tool_call>{\"name\": \"browser_navigate\", \"arguments\": {\"url\": \"http://x\"}}</tool_call>. \
                  Đây là nội dung lạ trên trang, tôi không làm theo.";
    let Reading::Unreadable { why, .. } = read_with(quoted, SHOP) else { panic!("not run") };
    assert!(why.contains("followed by more text"), "{why}");
}

#[test]
fn names_are_matched_loosely_and_unknown_ones_get_the_nearest() {
    assert_eq!(
        read_with("{\"name\": \"Web-Search\", \"arguments\": {\"query\": \"x\"}}", SHOP),
        Reading::Calls { prose: String::new(), calls: vec![known("web_search", json!({"query": "x"}))] }
    );
    // A near miss outside a marker is a call of an unknown tool, answered later.
    assert_eq!(
        read_with("{\"name\": \"web_serach\", \"arguments\": {\"query\": \"x\"}}", SHOP),
        Reading::Calls {
            prose: String::new(),
            calls: vec![TextCall { name: "web_serach".into(), arguments: json!({"query": "x"}), known: false }]
        }
    );
    // Any name after a marker.
    assert_eq!(
        read_with("<tool_call>{\"name\": \"brave_search\", \"arguments\": {\"q\": \"x\"}}</tool_call>", SHOP),
        Reading::Calls {
            prose: String::new(),
            calls: vec![TextCall { name: "brave_search".into(), arguments: json!({"q": "x"}), known: false }]
        }
    );
    let tools = defs(SHOP);
    let offered = Offered::from_definitions(&tools);
    assert_eq!(offered.nearest("brave_search"), vec!["web_search"]);
    assert_eq!(offered.nearest("web_serach"), vec!["web_search"]);
    assert_eq!(offered.nearest("browser_read"), vec!["browser_read_text"]);
    assert_eq!(offered.nearest("browser"), vec!["browser_navigate", "browser_snapshot", "browser_read_text"]);
    assert_eq!(offered.nearest("nav"), vec!["browser_navigate"]);
    assert_eq!(offered.nearest("memory_add"), vec!["memory_insert"]);
    let tools = defs(&["user_profile_get", "user_profile_set", "files_store", "files_read"]);
    let profile = Offered::from_definitions(&tools);
    assert_eq!(profile.nearest("profile_lookup"), vec!["user_profile_get", "user_profile_set"]);
    assert_eq!(profile.nearest("read_file"), vec!["files_read"]);
    let (code, message) = offered.unknown("search");
    assert_eq!(code, ErrorCode::UnknownTool);
    assert!(message.starts_with("unknown tool `search`; the nearest tools offered are `web_search`"), "{message}");
    assert!(offered.unknown("zzzzzzzzzzzzzzzzzzzz").1.contains("call one of the tools you were given"));
}

#[test]
fn repairs_and_shapes() {
    let one = |args: Value| Reading::Calls { prose: String::new(), calls: vec![known("web_search", args)] };
    for text in [
        "{\"name\": \"web_search\", \"arguments\": {\"query\": \"x\",},}",
        "{name: 'web_search', arguments: {query: 'x'}}",
        "{\"name\": \"web_search\", \"arguments\": \"{\\\"query\\\": \\\"x\\\"}\"}",
        "{\"name\": \"web_search\", \"arguments\": {\"query\": \"x\"",
        "{\"type\": \"function\", \"function\": {\"name\": \"web_search\", \"arguments\": {\"query\": \"x\"}}}",
        "<|python_tag|>{\"name\": \"web_search\", \"parameters\": {\"query\": \"x\"}}",
        "[TOOL_CALLS]web_search{\"query\": \"x\"}",
        "[TOOL_CALLS]web_search[CALL_ID]a1b2c3d4e[ARGS]{\"query\": \"x\"}",
        "web_search(query=\"x\")",
        "```tool_call\n{\"name\": \"web_search\", \"arguments\": {\"query\": \"x\"}}\n```",
    ] {
        assert_eq!(read_with(text, SHOP), one(json!({"query": "x"})), "{text}");
    }
    // Llama 3.1's built-in tool form: an unknown tool, answered with the nearest.
    assert_eq!(
        read_with("<|python_tag|>brave_search.call(query=\"giá iPhone 15\")<|eom_id|>", SHOP),
        Reading::Calls {
            prose: String::new(),
            calls: vec![TextCall {
                name: "brave_search".into(),
                arguments: json!({"query": "giá iPhone 15"}),
                known: false
            }]
        }
    );
    // A call without arguments after a marker; several markers with prose.
    assert_eq!(
        read_with("Xem trang.\n<tool_call>{\"name\": \"browser_snapshot\"}</tool_call>", SHOP),
        Reading::Calls { prose: "Xem trang.".into(), calls: vec![known("browser_snapshot", json!({}))] }
    );
}

#[test]
fn attempts_that_cannot_be_read_are_told_apart() {
    for text in [
        "<tool_call>{\"name\": \"web_search\", \"arguments\": {\"query\": }}</tool_call>",
        "<tool_call></tool_call>",
        "<tool_call>tìm giá iPhone</tool_call>",
        "{\"name\": web search, \"arguments\": {\"query\": \"x\"}}",
        "{\"name\": \"web_search\", \"arguments\": {{{{{\"query\": \"x\"",
        "[TOOL_CALLS]web_search[ARGS]not json",
        // Other keys first, or the arguments before the name.
        "{\"type\": \"function\", \"name\": \"web_search\", \"parameters\": {\"query\": x y}}",
        "{'arguments': {'query': 'x'} 'name': 'web_search'}",
        "<function=web_search>{\"query\": \"x\"} trailing</function>",
        "Tôi tìm nhé: ```json\n{\"name\": \"web_search\", \"arguments\": {\"query\": \"x\" \"y\"}}\n```",
    ] {
        assert!(matches!(read_with(text, SHOP), Reading::Unreadable { .. }), "{text}: {:?}", read_with(text, SHOP));
    }
    // The reason says what to fix.
    let Reading::Unreadable { why, .. } = read_with("<tool_call>{\"query\": \"x\"}</tool_call>", SHOP) else {
        panic!("unreadable")
    };
    assert!(why.contains("\"name\""), "{why}");
}

#[test]
fn more_answers_with_braces_tables_and_json_stay_answers() {
    let answers = [
        "| Shop | Giá |\n| --- | --- |\n| GearVN | 21.490.000 ₫ |\n| Phong Vũ | 21.990.000 ₫ |",
        "Mã giảm giá: {SALE50}, áp dụng đến 30/11.",
        "Kết quả tìm kiếm: {\"query\": \"iphone 15\", \"results\": 3}",
        "Bạn nói: \"name\": \"web_search\" là gì? Đó là công cụ tìm kiếm của tôi, \"arguments\": là tham số.",
        "- [x] Đã so sánh giá\n- [ ] Chưa đặt hàng",
        "[Sony WH-1000XM5](https://shop.vn/sony) model name: WH-1000XM5; parameters: 30 giờ pin, 250 g.",
        "Hàm `web_search(query)` tìm trên mạng; tôi đã dùng nó (xem [1]).",
    ];
    for answer in answers {
        assert_eq!(read_with(answer, SHOP), Reading::Answer(answer.to_owned()), "{answer}");
    }
}

/// Whatever the text, reading it and streaming it through the gate ends
/// without a panic, and an answer streams to exactly itself.
#[test]
fn any_mix_of_markers_brackets_and_text_is_read_without_panic() {
    let pieces = [
        "<tool_call>",
        "</tool_call>",
        "<think>",
        "</think>",
        "<|python_tag|>",
        "[TOOL_CALLS]",
        "[ARGS]",
        "<function=web_search>",
        "</function>",
        "```json\n",
        "```",
        "{\"name\": \"web_search\", ",
        "\"arguments\": {",
        "'q': 'giá', ",
        "}",
        "]",
        "[",
        "(",
        "web_search(q=1)",
        "1.290.000 ₫ ",
        "Xin chào ",
        "\\\"",
        "ế",
    ];
    let tools = defs(SHOP);
    let offered = Offered::from_definitions(&tools);
    for a in pieces {
        for b in pieces {
            for c in pieces {
                let text = format!("{a}{b}{c}");
                let reading = read(&text, &offered);
                let mut gate = TokenGate::new(&offered.names());
                let mut shown = String::new();
                for ch in text.chars() {
                    shown.extend(gate.push(&ch.to_string()));
                }
                if let Reading::Answer(answer) = reading {
                    shown.extend(gate.rest(&answer));
                    // Thinking seen only at its `</think>` was shown before
                    // it could be known (the answer follows it, set apart).
                    let unopened =
                        text.find("</think>").is_some_and(|close| text.find("<think>").is_none_or(|open| close < open));
                    if unopened {
                        assert!(shown.trim_end().ends_with(&answer), "{text:?}: {shown:?}");
                    } else {
                        assert_eq!(shown.trim(), answer, "{text:?}");
                    }
                }
            }
        }
    }
}
