/**
 * The fields of a bucket source in the add-source form (docs/API.md, "Bucket sources"):
 * the store, bucket and prefix, and the keys, which the server keeps apart and never
 * shows again (the secret is a password field, and the form clears it once added).
 */
import { type ApiError, fieldError } from "../api/client";
import type { NewSource } from "../api/endpoints";
import { t } from "../i18n";
import { Field } from "./Field";

export interface BucketState {
  endpoint: string;
  bucket: string;
  prefix: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  virtualHosted: boolean;
}

export const NO_BUCKET: BucketState = {
  endpoint: "",
  bucket: "",
  prefix: "",
  region: "",
  accessKeyId: "",
  secretAccessKey: "",
  virtualHosted: false,
};

/** The create body of a bucket source from the form's state; `name` as given, else bucket/prefix. */
export function bucketBody(s: BucketState, name: string): NewSource {
  const body: NewSource = {
    type: "s3",
    name: name || `${s.bucket.trim()}/${s.prefix.trim()}`,
    endpoint: s.endpoint.trim(),
    bucket: s.bucket.trim(),
    accessKeyId: s.accessKeyId.trim(),
    secretAccessKey: s.secretAccessKey,
  };
  if (s.prefix.trim()) body.prefix = s.prefix.trim();
  if (s.region.trim()) body.region = s.region.trim();
  if (s.virtualHosted) body.pathStyle = false;
  return body;
}

interface Props {
  value: BucketState;
  onChange: (v: BucketState) => void;
  error: ApiError | undefined;
}

export function BucketInput({ value: v, onChange, error }: Props) {
  const set = (patch: Partial<BucketState>) => onChange({ ...v, ...patch });
  const text = (key: keyof Omit<BucketState, "virtualHosted">, extra: Record<string, unknown> = {}) => ({
    value: v[key],
    onInput: (e: { currentTarget: HTMLInputElement }) => set({ [key]: e.currentTarget.value }),
    ...extra,
  });
  return (
    <div class="stack">
      <Field label={t("bucket.endpoint")} hint={t("bucket.endpointHint")} error={fieldError(error, "endpoint")}>
        {(ids) => <input {...ids} {...text("endpoint", { type: "url", required: true, placeholder: "https://" })} />}
      </Field>
      <Field label={t("bucket.name")} error={fieldError(error, "bucket")}>
        {(ids) => <input {...ids} {...text("bucket", { required: true, maxLength: 255 })} />}
      </Field>
      <Field label={t("bucket.prefix")} hint={t("bucket.prefixHint")} error={fieldError(error, "prefix")}>
        {(ids) => <input {...ids} {...text("prefix", { maxLength: 1024 })} />}
      </Field>
      <Field label={t("bucket.accessKeyId")} error={fieldError(error, "accessKeyId")}>
        {(ids) => <input {...ids} {...text("accessKeyId", { required: true, autocomplete: "off" })} />}
      </Field>
      <Field
        label={t("bucket.secretAccessKey")}
        hint={t("bucket.keysHint")}
        error={fieldError(error, "secretAccessKey")}
      >
        {(ids) => (
          <input {...ids} {...text("secretAccessKey", { type: "password", required: true, autocomplete: "off" })} />
        )}
      </Field>
      <Field label={t("bucket.region")} error={fieldError(error, "region")}>
        {(ids) => <input {...ids} {...text("region", { placeholder: "us-east-1", maxLength: 64 })} />}
      </Field>
      <label class="check">
        <input
          type="checkbox"
          checked={v.virtualHosted}
          onChange={(e) => set({ virtualHosted: e.currentTarget.checked })}
        />
        <span>{t("bucket.virtualHosted")}</span>
      </label>
    </div>
  );
}
