// The panel's strings in English and Vietnamese, and the choice between them
// (Vietnamese when the system language starts with "vi", else English).

import type { PermissionScope, RiskLevel, ToolKind, ToolStatus } from "./types";

export type Lang = "en" | "vi";

const en = {
  tagline: "Your local-first agentic browser",
  noticeTitle: "The chat arrives with the agent runtime",
  noticeBody:
    "The side-panel chat that drives your browser comes with the agent runtime. Today you can call every available tool below with the halley command line:",
  toolsTitle: "Tools",
  searchLabel: "Search tools",
  searchPlaceholder: "Name, description or scope…",
  statusFilterLabel: "Status",
  statusAll: "All",
  count: "{shown} of {total} tools",
  noMatch: "No tool matches “{query}”.",
  empty: "The tool catalogue is empty.",
  loading: "Loading the tool catalogue…",
  loadError: "Could not load the tool catalogue: {error}",
  notInAppTitle: "Open Halley from the desktop app",
  notInAppBody:
    "This page is Halley's side panel. It talks to the Halley core through the desktop app, so in a plain browser it cannot list tools. Start the app with “make run”, or use the command line:",
  needsConfirmation: "Asks before running",
  risk: "Risk: {level}",
  needs: "Needs: {needs}",
  scopeLabel: "Permission scope",
  "kind.primitive": "Primitives",
  "kind.skill": "Skills",
  "kind.custom": "Custom tools",
  "status.available": "Available",
  "status.planned": "Planned",
  "risk.low": "low",
  "risk.medium": "medium",
  "risk.high": "high",
  "scope.READ_ONLY": "Read only",
  "scope.WRITE_NON_DESTRUCTIVE": "Writes, never submits",
  "scope.SUBMIT": "Submits",
  "scope.PUBLISH": "Publishes",
  "scope.PAYMENT": "Pays",
  "scope.DESTRUCTIVE": "Deletes or cancels",
} as const;

export type MessageKey = keyof typeof en;
type Table = Record<MessageKey, string>;

const vi: Table = {
  tagline: "Trình duyệt tác tử chạy ngay trên máy bạn",
  noticeTitle: "Khung trò chuyện sẽ đến cùng bộ chạy tác tử",
  noticeBody:
    "Khung trò chuyện điều khiển trình duyệt của bạn sẽ có khi bộ chạy tác tử hoàn thành. Ngay hôm nay, bạn có thể gọi mọi công cụ sẵn sàng bên dưới bằng dòng lệnh halley:",
  toolsTitle: "Công cụ",
  searchLabel: "Tìm công cụ",
  searchPlaceholder: "Tên, mô tả hoặc phạm vi…",
  statusFilterLabel: "Trạng thái",
  statusAll: "Tất cả",
  count: "{shown}/{total} công cụ",
  noMatch: "Không có công cụ nào khớp với “{query}”.",
  empty: "Danh mục công cụ đang trống.",
  loading: "Đang tải danh mục công cụ…",
  loadError: "Không tải được danh mục công cụ: {error}",
  notInAppTitle: "Hãy mở Halley từ ứng dụng máy tính",
  notInAppBody:
    "Trang này là bảng bên của Halley. Nó làm việc với lõi Halley thông qua ứng dụng máy tính, nên trong trình duyệt thông thường không thể liệt kê công cụ. Hãy chạy ứng dụng bằng “make run”, hoặc dùng dòng lệnh:",
  needsConfirmation: "Hỏi trước khi chạy",
  risk: "Rủi ro: {level}",
  needs: "Cần: {needs}",
  scopeLabel: "Phạm vi quyền",
  "kind.primitive": "Công cụ cơ bản",
  "kind.skill": "Kỹ năng",
  "kind.custom": "Công cụ tùy chỉnh",
  "status.available": "Sẵn sàng",
  "status.planned": "Dự kiến",
  "risk.low": "thấp",
  "risk.medium": "trung bình",
  "risk.high": "cao",
  "scope.READ_ONLY": "Chỉ đọc",
  "scope.WRITE_NON_DESTRUCTIVE": "Ghi, không bao giờ gửi",
  "scope.SUBMIT": "Gửi đi",
  "scope.PUBLISH": "Đăng công khai",
  "scope.PAYMENT": "Thanh toán",
  "scope.DESTRUCTIVE": "Xóa hoặc hủy",
};

export const MESSAGES: Record<Lang, Table> = { en, vi };

/** Vietnamese when the language tag starts with "vi" (any case), else English. */
export function pickLanguage(tag: string | undefined | null): Lang {
  return typeof tag === "string" && tag.trim().toLowerCase().startsWith("vi") ? "vi" : "en";
}

export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

/** A translator for `lang`: looks the key up and fills `{name}` placeholders. */
export function translator(lang: Lang): Translate {
  const table = MESSAGES[lang];
  return (key, vars) =>
    table[key].replace(/\{(\w+)\}/g, (whole, name: string) => {
      const value = vars?.[name];
      return value === undefined ? whole : String(value);
    });
}

export const kindKey = (kind: ToolKind): MessageKey => `kind.${kind}`;
export const statusKey = (status: ToolStatus): MessageKey => `status.${status}`;
export const riskKey = (risk: RiskLevel): MessageKey => `risk.${risk}`;
export const scopeKey = (scope: PermissionScope): MessageKey => `scope.${scope}`;
