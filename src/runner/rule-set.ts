/** What a loaded rule belongs to. */
export interface RuleKey {
  subscriptionId: string;
  marketId: string;
  token: string;
}

/**
 * The loaded (subscription, market) rules by id: their ids (reused once freed, so the rule index
 * stays dense), each subscription's rules, and how many rules follow each token.
 */
export class RuleSet {
  private readonly keys = new Map<number, RuleKey>();
  private readonly bySubscription = new Map<string, Set<number>>();
  private readonly tokenRefs = new Map<string, number>();
  private readonly freeIds: number[] = [];
  private nextId = 0;

  /** Adds a rule; `firstOfToken` when no rule followed its token before. */
  add(key: RuleKey): { ruleId: number; firstOfToken: boolean } {
    const ruleId = this.freeIds.pop() ?? this.nextId++;
    this.keys.set(ruleId, key);
    let ids = this.bySubscription.get(key.subscriptionId);
    if (!ids) this.bySubscription.set(key.subscriptionId, (ids = new Set()));
    ids.add(ruleId);
    const refs = this.tokenRefs.get(key.token) ?? 0;
    this.tokenRefs.set(key.token, refs + 1);
    return { ruleId, firstOfToken: refs === 0 };
  }

  /**
   * Removes a subscription's rules and answers their ids; adds the tokens no rule follows any more
   * to `dropped`.
   */
  removeSubscription(subscriptionId: string, dropped: Set<string>): number[] {
    const ids = this.bySubscription.get(subscriptionId);
    if (!ids) return [];
    for (const ruleId of ids) {
      const { token } = this.keys.get(ruleId)!;
      this.keys.delete(ruleId);
      this.freeIds.push(ruleId);
      const refs = (this.tokenRefs.get(token) ?? 1) - 1;
      if (refs <= 0) {
        this.tokenRefs.delete(token);
        dropped.add(token);
      } else this.tokenRefs.set(token, refs);
    }
    this.bySubscription.delete(subscriptionId);
    return [...ids];
  }

  key(ruleId: number): RuleKey | undefined {
    return this.keys.get(ruleId);
  }

  /** The rule of a (subscription, market), if loaded. */
  find(subscriptionId: string, marketId: string): number | undefined {
    for (const ruleId of this.bySubscription.get(subscriptionId) ?? []) if (this.keys.get(ruleId)!.marketId === marketId) return ruleId;
    return undefined;
  }

  /** A subscription's loaded rules with what they belong to. */
  rulesOf(subscriptionId: string): Array<[ruleId: number, key: RuleKey]> {
    return [...(this.bySubscription.get(subscriptionId) ?? [])].map((ruleId) => [ruleId, this.keys.get(ruleId)!]);
  }

  follows(token: string): boolean {
    return this.tokenRefs.has(token);
  }

  /** Tokens at least one rule follows. */
  tokens(): string[] {
    return [...this.tokenRefs.keys()];
  }

  get tokenCount(): number {
    return this.tokenRefs.size;
  }
}
