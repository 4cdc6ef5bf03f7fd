/** Who is calling: the user behind a verified token, as read on this request. */
export type Caller = {
  userId: string;
  subject: string;
  email: string | null;
  displayName: string | null;
  isSuperAdmin: boolean;
};
