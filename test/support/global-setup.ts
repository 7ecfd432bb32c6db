// Prepared once per test run; database templates are added by the database layer.
export default async function setup(): Promise<void> {}
