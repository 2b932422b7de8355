/** Request and response schemas of the administration endpoints (docs/API.md, Administration). */
import { t } from "elysia";
import { Enum, QueryInteger, StrictInteger } from "../../http/schemas";
import { Email } from "../auth/schemas";

const Tier = Enum(["free", "pro", "unlimited"] as const);

export const AdminUserModel = t.Object({
  id: t.String(),
  email: t.String(),
  tier: Tier,
  isAdmin: t.Boolean(),
  disabled: t.Boolean(),
  disabledAt: t.Nullable(t.String({ format: "date-time" })),
  createdAt: t.String({ format: "date-time" }),
  lastSignInAt: t.Nullable(t.String({ format: "date-time", description: "The last session started; null: never." })),
  pipelineCount: t.Integer(),
  chunkCount: t.Integer({ description: "Chunks stored in all the user's pipelines and knowledge bases." }),
});

export const AdminUserList = t.Object({ data: t.Array(AdminUserModel) });
export const AdminUserEnvelope = t.Object({ user: AdminUserModel });

export const AdminUserPatch = t.Object(
  {
    tier: t.Optional(Tier),
    isAdmin: t.Optional(t.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const NewUserBody = t.Object(
  {
    email: Email,
    password: t.Optional(
      t.String({ minLength: 8, maxLength: 1024, description: "Without it, an invitation is made instead." }),
    ),
    tier: t.Optional(Tier),
    isAdmin: t.Optional(t.Boolean()),
    expiresIn: t.Optional(
      StrictInteger({
        minimum: 1,
        maximum: 720,
        description: "Hours the invitation is valid (no password): default 72.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const InvitationBody = t.Object(
  {
    email: Email,
    tier: t.Optional(Tier),
    isAdmin: t.Optional(t.Boolean()),
    expiresIn: t.Optional(StrictInteger({ minimum: 1, maximum: 720, description: "Hours it is valid: default 72." })),
  },
  { additionalProperties: false },
);

export const InvitationModel = t.Object({
  id: t.String(),
  email: t.String(),
  tier: Tier,
  isAdmin: t.Boolean(),
  status: Enum(["pending", "used", "expired", "revoked"] as const),
  createdAt: t.String({ format: "date-time" }),
  expiresAt: t.String({ format: "date-time" }),
  createdBy: t.String({ description: 'The administrator\'s email, or "cli (<os user>)".' }),
  usedAt: t.Nullable(t.String({ format: "date-time" })),
  revokedAt: t.Nullable(t.String({ format: "date-time" })),
  userId: t.Nullable(t.String({ description: "The account made with it." })),
});

export const InvitationCreated = t.Object({
  invitation: InvitationModel,
  token: t.String({ description: "Shown only in this response; only its hash is stored." }),
  url: t.String({ description: "The link to hand over: the dashboard's #/invite/<token>." }),
});

export const InvitationEnvelope = t.Object({ invitation: InvitationModel });
export const InvitationList = t.Object({ data: t.Array(InvitationModel) });

export const PasswordReset = t.Object({
  user: AdminUserModel,
  temporaryPassword: t.String({ description: "Shown only in this response; the user's sessions have ended." }),
});

export const DeleteUserQuery = t.Object({
  confirm: t.Optional(t.String({ description: "The user's email address: confirms the deletion." })),
});

export const AuditEntryModel = t.Object({
  id: t.Integer(),
  at: t.String({ format: "date-time" }),
  actorId: t.Nullable(t.String({ description: "The administrator's id; null for the command line." })),
  actor: t.String({ description: 'The administrator\'s email, or "cli (<os user>)".' }),
  action: t.String({ description: "user.created, user.tier_changed, user.admin_granted, …" }),
  targetId: t.Nullable(t.String()),
  targetEmail: t.Nullable(t.String()),
  details: t.Record(t.String(), t.Unknown()),
});

export const AuditQuery = t.Object({
  format: t.Optional(Enum(["json", "jsonl"] as const)),
  limit: t.Optional(QueryInteger({ minimum: 1, maximum: 500, default: 100 })),
  before: t.Optional(QueryInteger({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  after: t.Optional(QueryInteger({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
});

export const AuditPage = t.Object({
  data: t.Array(AuditEntryModel),
  nextBefore: t.Nullable(t.Integer({ description: "Pass as `before` for the next (older) page; null at the end." })),
});
