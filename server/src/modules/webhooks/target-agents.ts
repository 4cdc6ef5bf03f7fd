import { type AgentOptions, Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { CheckedTarget } from './target-address.js';

/** How long an idle connection is kept: below the 5 s keep-alive of Node's and most servers. */
const IDLE_MS = 4_000;
/** Idle connections kept per address: one per worker that may be sending to it at once. */
const IDLE_PER_ADDRESS = 4;
/** Addresses with an agent; the least recently used one's connections are closed past this. */
const AGENTS_MAX = 256;

/**
 * Keep-alive connections for the delivery worker, one agent per checked address. An endpoint's
 * deliveries go out one after another: a connection per delivery would cost a TCP (and TLS)
 * handshake each, on both sides. Keyed by the address the check passed (and the name, for TLS), a
 * connection is reused only for an attempt whose own check resolved to that same address: a name
 * that now resolves elsewhere gets a new agent, never the old connection (DNS rebinding).
 */
export class TargetAgents {
  private readonly agents = new Map<string, HttpAgent>();

  agentFor({ url, address, family }: CheckedTarget): HttpAgent {
    const key = `${url.protocol}//${url.hostname}:${url.port}@${address}/${family}`;
    const known = this.agents.get(key);
    if (known) {
      // Most recently used last: the map's order is the eviction order.
      this.agents.delete(key);
      this.agents.set(key, known);
      return known;
    }
    const options: AgentOptions = {
      keepAlive: true,
      maxFreeSockets: IDLE_PER_ADDRESS,
      timeout: IDLE_MS,
      scheduling: 'lifo',
    };
    const agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    this.agents.set(key, agent);
    if (this.agents.size > AGENTS_MAX) {
      const [oldest] = this.agents.keys();
      if (oldest !== undefined) {
        this.agents.get(oldest)?.destroy();
        this.agents.delete(oldest);
      }
    }
    return agent;
  }

  /** Closes every connection (the worker stops). */
  destroy(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
