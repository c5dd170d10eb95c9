//! The argument objects the catalogue tests validate: tools.md's examples
//! verbatim, designed ones for entries without an example, and malformed ones.

use serde_json::{Value, json};

/// Every example argument object of tools.md, verbatim (English rendering),
/// plus the Vietnamese originals where they differ.
pub(super) fn spec_examples() -> Vec<(&'static str, Value)> {
    let files_store = json!({"file_path":"file://passport.png","tags":["travel","passport"],"note":"scan 2025"});
    let check = json!({"selector":"input#agree_terms"});
    vec![
        ("browser_navigate", json!({"url":"https://example.com/flights","wait_until":"networkidle"})),
        ("browser_new_tab", json!({"url":"https://example.com/hotels"})),
        ("browser_switch_tab", json!({"tab_id":"tab-3"})),
        ("browser_list_tabs", json!({"include_favicons":false})),
        ("browser_close_tab", json!({"tab_id":"tab-3"})),
        ("browser_wait", json!({"until":"selector","selector":".results","timeout_ms":15000})),
        ("browser_click", json!({"selector":"button#search"})),
        ("browser_type", json!({"selector":"input[name='destination']","text":"Tokyo","clear_first":true})),
        ("browser_scroll", json!({"amount_px":1200})),
        ("browser_press_key", json!({"keys":["TAB","TAB","ENTER"]})),
        ("browser_select_option", json!({"selector":"select#cabin","value":"economy"})),
        ("browser_check", check.clone()),
        ("browser_uncheck", check),
        ("browser_upload_file", json!({"selector":"input[type='file']#passport","file_ref":"file://passport.png"})),
        ("browser_download", json!({"url":"https://example.com/booking.pdf"})),
        ("browser_screenshot", json!({"full_page":true})),
        ("browser_get_dom", json!({"selector":"#product-details"})),
        ("browser_read_text", json!({"selector":".cancellation-policy"})),
        (
            "browser_extract",
            json!({"schema":{"price_total":"number","currency":"string","cancellation_policy":"string"},"source":{"type":"dom","selector":"#checkout-summary"}}),
        ),
        ("web_search", json!({"query":"carry-on size ANA 2025","locale":"vi-VN","max_results":5})),
        (
            "normalize_compare",
            json!({"schema":{"total_cost":"number","warranty_months":"number","return_days":"number"},"items":[{"source":"storeA","raw":{"price":100,"ship":5,"warranty":"12m"}},{"source":"storeB","raw":{"price":98,"delivery":12,"warranty_months":24}}]}),
        ),
        ("user_profile_set", json!({"set":{"travel.preferred_airlines":["VN","NH"],"shopping.budget_vnd":25000000}})),
        ("files_store", files_store.clone()),
        ("files_tag", files_store),
        ("auth_oauth_connect", json!({"provider":"google","scopes":["youtube.upload","openid","email"]})),
        (
            "watch_create",
            json!({"target":{"url":"https://store.com/p/123","selector":"#price"},"trigger_rules":[{"op":"<=","value":19990000}],"frequency":"6h"}),
        ),
        ("notify_send", json!({"channel":"push","title":"Price dropped","message":"Product X down to 19.99M"})),
        ("notify_send", json!({ "channel":"push", "title":"Giá đã giảm", "message":"Sản phẩm X xuống 19.99M" })),
        (
            "request_user_confirmation",
            json!({"action_summary":"Book HAN→NRT on 2026-02-10","cost_estimate":{"amount":12500000,"currency":"VND"},"fields_to_submit":{"name":"...","passport_no":"..."},"risks":["Non-refundable","7kg baggage"]}),
        ),
        (
            "request_user_confirmation",
            json!({"action_summary":"Đặt vé HAN→NRT ngày 2026-02-10","cost_estimate": { "amount": 12500000, "currency":"VND" },"fields_to_submit": { "name":"...", "passport_no":"..." },"risks":["Không hoàn/đổi vé", "Hành lý 7kg"]}),
        ),
        ("human_solve_challenge", json!({"challenge_type":"captcha","page_hint":"Login checkout","timeout_ms":120000})),
        (
            "travel_plan_itinerary",
            json!({"origin":"HAN","destination":"NRT","dates":{"from":"2026-02-10","to":"2026-02-14"},"budget_vnd":30000000}),
        ),
        ("travel_search_options", json!({"type":"flight","route":"HAN-NRT","date":"2026-02-10","pax":1})),
        (
            "travel_fill_forms",
            json!({"form_url":"https://visa.gov/apply","docs":["passport_ref"],"profile_keys":["name","dob"]}),
        ),
        ("travel_monitor_trip", json!({"booking_refs":["file://booking.pdf"],"frequency":"1h"})),
        ("shopping_extract_specs", json!({"product_url":"https://store.com/laptop/abc","category":"laptop_gaming_v1"})),
        ("shopping_track_price", json!({"url":"https://store.com/p/123","target_price_vnd":19990000,"frequency":"6h"})),
        ("shopping_compare_options", json!({"items":[{"url":"..."},{"url":"..."}],"schema":"shopping_compare_v1"})),
        (
            "shopping_prepare_checkout",
            json!({"selected_option":{"url":"...","variant":"16GB/1TB"},"address_ref":"file://addr.json"}),
        ),
        (
            "creator_collect_research",
            json!({"topic":"AI browser trends 2025","max_sources":8,"note_schema":"creator_notes_v1"}),
        ),
        (
            "creator_plan_calendar",
            json!({"channels":["youtube","tiktok"],"cadence":"3_per_week","pillars":["tech","build-in-public"]}),
        ),
        (
            "creator_schedule_post",
            json!({"channel":"youtube","title":"...","description":"...","media_refs":["file://video.mp4"],"schedule_time":"2025-12-15T19:00:00+07:00"}),
        ),
        ("creator_triage_inbox", json!({"thread_urls":["...","..."],"policy_ref":"file://reply_policy.md"})),
    ]
}

/// Argument objects for the entries tools.md gives no example for.
pub(super) fn designed_examples() -> Vec<(&'static str, Value)> {
    vec![
        ("user_profile_get", json!({"keys":["travel.preferred_airlines"]})),
        ("files_get", json!({"tags":["travel","passport"]})),
        ("files_get", json!({"id":"file_123"})),
        ("watch_poll", json!({})),
        ("watch_poll", json!({"watch_id":"w_1"})),
        ("browser_list_tabs", json!({})),
        ("browser_new_tab", json!({})),
        ("browser_snapshot", json!({})),
        ("browser_snapshot", json!({"page":2,"max_chars":8000})),
        ("browser_find", json!({"query":"thêm vào giỏ","max_results":5})),
        ("browser_click", json!({"ref":"e12"})),
        ("browser_click", json!({"selector":"role=button[name=\"Thêm vào giỏ\"]","frame":"iframe#shop"})),
        ("browser_click", json!({"selector":"text=Submit"})),
        ("browser_press_key", json!({"keys":["Ctrl+A","Backspace"],"selector":"input#q"})),
        ("browser_scroll", json!({"selector":"#reviews"})),
        ("browser_select_option", json!({"selector":"select#cabin","label":"Phổ thông"})),
        ("browser_download", json!({"selector":"a.download-ticket","save_as":"ticket.pdf"})),
        ("browser_wait", json!({"until":"timeout","timeout_ms":2000})),
        ("browser_wait", json!({"until":"text","text":"Thanh toán thành công"})),
        ("browser_extract", json!({"schema":{"price":"number"}})),
        (
            "browser_retry",
            json!({"action":{"tool":"browser_click","arguments":{"selector":"button#search"}},"policy":{"max_attempts":3,"backoff_ms":500}}),
        ),
        ("browser_retry", json!({"action":{"tool":"browser_navigate","arguments":{"url":"https://example.com"}}})),
        ("browser_detect_state", json!({})),
        ("browser_detect_state", json!({"tab_id":"tab-3"})),
        ("browser_extract_table", json!({"selector":"table.fares","max_rows":50})),
        ("browser_extract_table", json!({})),
        (
            "watch_create",
            json!({"target":{"url":"https://store.com/p/123"},"trigger_rules":[{"op":"changed"},{"op":"contains","value":"Còn hàng"}],"frequency":"30m"}),
        ),
        ("human_solve_challenge", json!({"challenge_type":"2fa"})),
        ("notify_send", json!({"channel":"in-app","title":"t","message":"m","url":"https://store.com/p/123"})),
        (
            "travel_search_options",
            json!({"type":"hotel","location":"Shinjuku, Tokyo","date":"2026-02-10","return_date":"2026-02-14","pax":2}),
        ),
        ("creator_schedule_post", json!({"channel":"tiktok","title":"Build in public #1"})),
    ]
}

/// Argument objects each schema must reject.
pub(super) fn malformed() -> Vec<(&'static str, Value)> {
    vec![
        ("browser_navigate", json!({"url": 5})),
        ("browser_navigate", json!({"url":"x","wait_until":"soon"})),
        ("browser_navigate", json!({})),
        ("browser_navigate", json!({"url":"https://example.com","new_tab":true})),
        ("browser_navigate", json!({"url":"https://example.com","timeout_ms":0})),
        ("browser_navigate", json!({"url":"not a url"})),
        ("browser_press_key", json!({"keys":"ENTER"})),
        ("browser_press_key", json!({"keys":[]})),
        ("browser_press_key", json!({"keys":[""]})),
        ("browser_click", json!({"selector":"a","extra":true})),
        ("browser_click", json!({"selector":5})),
        ("browser_type", json!({"selector":"input"})),
        ("browser_switch_tab", json!({})),
        ("browser_close_tab", json!({})),
        ("browser_wait", json!({"until":"forever"})),
        ("browser_upload_file", json!({"selector":"input[type=file]"})),
        ("browser_extract", json!({"schema":{"price":"float"}})),
        ("browser_extract", json!({"schema":{}})),
        ("browser_extract", json!({"schema":{"price":"number"},"source":{"type":"pdf"}})),
        ("web_search", json!({"query":"x","max_results":0})),
        ("web_search", json!({"query":"x","max_results":21})),
        ("web_search", json!({"max_results":5})),
        ("auth_oauth_connect", json!({"provider":"google"})),
        ("auth_oauth_connect", json!({"provider":"google","scopes":"email"})),
        ("watch_create", json!({"trigger_rules":[{"op":"<=","value":1}],"frequency":"6h"})),
        (
            "watch_create",
            json!({"target":{"url":"https://store.com/p/1"},"trigger_rules":[{"op":"<=","value":1}],"frequency":"6 hours"}),
        ),
        (
            "watch_create",
            json!({"target":{"url":"https://store.com/p/1"},"trigger_rules":[{"op":"=~","value":1}],"frequency":"6h"}),
        ),
        ("watch_create", json!({"target":{"url":"https://store.com/p/1"},"trigger_rules":[],"frequency":"6h"})),
        ("watch_poll", json!({"watch_id":7})),
        ("notify_send", json!({"channel":"sms","title":"t","message":"m"})),
        ("notify_send", json!({"channel":"push","title":"t"})),
        ("request_user_confirmation", json!({"action_summary":"x","cost_estimate":{"amount":1,"currency":"vnd"}})),
        ("request_user_confirmation", json!({"cost_estimate":{"amount":1,"currency":"VND"}})),
        ("human_solve_challenge", json!({"challenge_type":"robot"})),
        ("browser_retry", json!({"action":{"tool":"browser_upload_file","arguments":{}}})),
        ("browser_retry", json!({"action":{"tool":"browser_click"},"policy":{"max_attempts":0}})),
        ("browser_extract_table", json!({"max_rows":0})),
        (
            "travel_plan_itinerary",
            json!({"origin":"HAN","destination":"NRT","dates":{"from":"10/02/2026","to":"2026-02-14"}}),
        ),
        (
            "travel_plan_itinerary",
            json!({"origin":"HAN","destination":"NRT","dates":{"from":"2026-02-10","to":"2026-02-14"},"budget_vnd":-1}),
        ),
        (
            "travel_plan_itinerary",
            json!({"origin":"HAN","destination":"NRT","dates":{"from":"2026-02-10","to":"2026-02-14"},"budget_vnd":"30tr"}),
        ),
        ("travel_search_options", json!({"type":"train","date":"2026-02-10"})),
        ("travel_monitor_trip", json!({"booking_refs":[],"frequency":"1h"})),
        ("shopping_track_price", json!({"url":"https://store.com/p/123","frequency":"often"})),
        ("shopping_compare_options", json!({"items":[{"url":"https://a.vn/1"}]})),
        ("shopping_prepare_checkout", json!({"selected_option":{"variant":"16GB"},"address_ref":"file://addr.json"})),
        ("creator_plan_calendar", json!({"channels":["youtube"],"cadence":"sometimes"})),
        ("creator_schedule_post", json!({"channel":"youtube","title":"x","schedule_time":"tomorrow 7pm"})),
        ("creator_triage_inbox", json!({"thread_urls":[]})),
        ("files_store", json!({"tags":["travel"]})),
        ("user_profile_set", json!({"set":{},"oops":1})),
    ]
}
