/**
 * Password hashes: argon2id, at one cost for the whole server (`Config.passwordCost`).
 * The default is Bun's own (64 MiB, 2 passes: about 0.13 s of CPU a hash on a laptop core).
 * Nothing but the test suite sets it: its in-process servers hash at a token cost, as
 * frameworks' test configurations do, so that hundreds of sign-ups do not dominate its CPU.
 * A hash records its own cost, so verifying needs none.
 */
import { PASSWORD_COST, type PasswordCost } from "../../config";

export class Passwords {
  private dummy: Promise<string> | undefined;

  constructor(private readonly cost: PasswordCost = PASSWORD_COST) {}

  hash(password: string): Promise<string> {
    return Bun.password.hash(password, {
      algorithm: "argon2id",
      memoryCost: this.cost.memoryKib,
      timeCost: this.cost.passes,
    });
  }

  /**
   * Whether `password` matches `hash`. Without a hash (an unknown user) it checks against
   * a hash of nothing at the same cost and answers false, so that timing does not tell.
   */
  async verify(password: string, hash: string | undefined): Promise<boolean> {
    if (hash !== undefined) return Bun.password.verify(password, hash);
    this.dummy ??= this.hash("not-a-real-password");
    await Bun.password.verify(password, await this.dummy);
    return false;
  }
}
