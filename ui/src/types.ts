// The shapes the desktop shell sends to the panel. Mirrors the serde output
// of `halley::tools::ToolSpec` (src/tools/spec.rs); keep the two in step.

export type ToolKind = "primitive" | "skill" | "custom";
export type Executor = "builtin" | "client" | "implicit";
export type ToolStatus = "available" | "planned";
export type RiskLevel = "low" | "medium" | "high";

/** Permission scopes, from harmless to hard to undo (riskier later). */
export const PERMISSION_SCOPES = [
  "READ_ONLY",
  "WRITE_NON_DESTRUCTIVE",
  "SUBMIT",
  "PUBLISH",
  "PAYMENT",
  "DESTRUCTIVE",
] as const;
export type PermissionScope = (typeof PERMISSION_SCOPES)[number];

export interface ToolSpec {
  name: string;
  description: string;
  kind: ToolKind;
  executor: Executor;
  status: ToolStatus;
  permission_scope: PermissionScope;
  risk_level: RiskLevel;
  requires_confirmation: boolean;
  parameters: unknown;
  output_schema: unknown;
  /** Only for planned tools: what the tool needs before it can run. */
  needs?: string;
}
