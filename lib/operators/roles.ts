// Who may do what in the operator's console (issue 52, docs/operator.md): the one table, read
// by every console route (lib/http/console) and by the role table test. Pure: the browser
// imports it too, to hide what a role cannot do (the server refuses it anyway).

export const OPERATOR_ROLES = ["admin", "support", "finance", "viewer"] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/**
 * Every action of the console. Reads are open to every role (a viewer sees everything and
 * changes nothing); each write belongs to the roles of its domain, and admin does everything:
 * support runs orders and resellers, finance runs withdrawals, the treasury and reconciliation.
 */
export const OPERATOR_ACTIONS = {
  // Reads.
  "queue.read": ["admin", "support", "finance", "viewer"],
  "orders.read": ["admin", "support", "finance", "viewer"],
  "resellers.read": ["admin", "support", "finance", "viewer"],
  "withdrawals.read": ["admin", "support", "finance", "viewer"],
  "treasury.read": ["admin", "support", "finance", "viewer"],
  "providers.read": ["admin", "support", "finance", "viewer"],
  "audit.read": ["admin", "support", "finance", "viewer"],
  "operators.read": ["admin", "support", "finance", "viewer"],
  // Orders.
  "orders.sync": ["admin", "support"],
  "orders.refund_address": ["admin", "support"],
  "orders.choice": ["admin", "support"],
  "orders.resolve": ["admin", "support"],
  "orders.note": ["admin", "support"],
  // Resellers.
  "resellers.suspend": ["admin", "support"],
  "resellers.markup_cap": ["admin", "support"],
  "resellers.note": ["admin", "support"],
  // Money.
  "withdrawals.approve": ["admin", "finance"],
  "withdrawals.reject": ["admin", "finance"],
  "withdrawals.retry": ["admin", "finance"],
  "treasury.reconcile": ["admin", "finance"],
  // The platform.
  "providers.switch": ["admin"],
  "operators.manage": ["admin"],
} as const satisfies Record<string, readonly OperatorRole[]>;

export type OperatorAction = keyof typeof OPERATOR_ACTIONS;

export const isOperatorRole = (v: unknown): v is OperatorRole => typeof v === "string" && (OPERATOR_ROLES as readonly string[]).includes(v);

/** Whether `role` may do `action`. An unknown role may do nothing. */
export function can(role: string, action: OperatorAction): boolean {
  return (OPERATOR_ACTIONS[action] as readonly string[]).includes(role);
}

/** The actions a role may do, for the console's UI. */
export function actionsOf(role: string): OperatorAction[] {
  return (Object.keys(OPERATOR_ACTIONS) as OperatorAction[]).filter((a) => can(role, a));
}
