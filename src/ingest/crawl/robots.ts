/**
 * robots.txt: which paths a crawler may fetch, for ragd's group (a `User-agent` line
 * naming ragd) or else the `*` group. Longest matching rule wins; Allow wins a tie;
 * `*` and a final `$` work as in Google's and RFC 9309's reading.
 */

export interface RobotsRules {
  allows(pathAndQuery: string): boolean;
  /** Crawl-delay in seconds, if the group sets one. */
  delaySeconds: number | null;
}

interface Rule {
  allow: boolean;
  length: number;
  re: RegExp;
}

export const ALLOW_ALL: RobotsRules = { allows: () => true, delaySeconds: null };
export const DISALLOW_ALL: RobotsRules = { allows: () => false, delaySeconds: null };

/**
 * Reads a robots.txt for the user agent `agent` (e.g. "ragd").
 * @example parseRobots("User-agent: *\nDisallow: /private", "ragd").allows("/private/x") // false
 */
export function parseRobots(text: string, agent: string): RobotsRules {
  const groups: { agents: string[]; lines: [string, string][] }[] = [];
  let current: { agents: string[]; lines: [string, string][] } | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, "").trim();
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = m[1]!.toLowerCase();
    const value = m[2]!.trim();
    if (key === "user-agent") {
      if (!current || current.lines.length) groups.push((current = { agents: [], lines: [] }));
      current.agents.push(value.toLowerCase());
    } else if (current) current.lines.push([key, value]);
  }
  const name = agent.toLowerCase();
  const group =
    groups.find((g) => g.agents.some((a) => a !== "*" && name.includes(a))) ??
    groups.find((g) => g.agents.includes("*"));
  if (!group) return ALLOW_ALL;
  const rules: Rule[] = [];
  let delaySeconds: number | null = null;
  for (const [key, value] of group.lines) {
    if (key === "crawl-delay" && Number.isFinite(Number(value))) delaySeconds = Number(value);
    if ((key === "allow" || key === "disallow") && value)
      rules.push({ allow: key === "allow", length: value.length, re: ruleRegExp(value) });
  }
  return {
    delaySeconds,
    allows: (path) => {
      let best: Rule | null = null;
      for (const r of rules) {
        if (!r.re.test(path)) continue;
        if (!best || r.length > best.length || (r.length === best.length && r.allow)) best = r;
      }
      return best?.allow ?? true;
    },
  };
}

function ruleRegExp(pattern: string): RegExp {
  const anchored = pattern.endsWith("$");
  const body = (anchored ? pattern.slice(0, -1) : pattern)
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}${anchored ? "$" : ""}`);
}
