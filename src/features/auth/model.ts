/** Request and response schemas of the account endpoints. */
import { t } from "elysia";

export const Credentials = t.Object({
  email: t.String({ format: "email", maxLength: 320, description: "Case-insensitive, unique." }),
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
