"use client";

import { createContext, useContext } from "react";

// The signed-in operator and what its role may do (GET /api/console/me): the pages hide the
// forms of actions the role lacks; the server refuses them anyway (lib/operators/roles.ts).

export interface Me {
  operator: { id: string; wallet: string; role: string };
  actions: string[];
}

export const MeContext = createContext<Me | null>(null);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error("useMe outside the console's shell");
  return me;
}

/** Whether the signed-in operator's role may do `action` (a permission name of lib/operators/roles.ts). */
export function useCan(): (action: string) => boolean {
  const me = useMe();
  return (action) => me.actions.includes(action);
}
