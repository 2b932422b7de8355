/** Request and response schemas of the account endpoints. */
import { Value } from "@sinclair/typebox/value";
import { t } from "elysia";

/** What an account's email must be: sign-up's body and single sign-on (oidc.ts) both hold to it. */
export const Email = t.String({ format: "email", maxLength: 320, description: "Case-insensitive, unique." });

/** Whether `email` passes sign-up's rule for an account's email. */
export const isAccountEmail = (email: string): boolean => Value.Check(Email, email);

export const Credentials = t.Object({
  email: Email,
  password: t.String({ minLength: 8, maxLength: 1024 }),
});

export const UserModel = t.Object({
  id: t.String(),
  email: t.String(),
  tier: t.Union([t.Literal("free"), t.Literal("pro"), t.Literal("unlimited")]),
  isAdmin: t.Boolean({ description: "An administrator: manages accounts, no pipeline limit." }),
  mustChangePassword: t.Boolean({
    description: "True after an administrator reset the password: choose one with POST /api/auth/password.",
  }),
  createdAt: t.String({ format: "date-time" }),
});

export const UserEnvelope = t.Object({ user: UserModel });

export const PasswordChange = t.Object({
  currentPassword: t.String({ minLength: 1, maxLength: 1024 }),
  newPassword: t.String({ minLength: 8, maxLength: 1024 }),
});
