export function FeedbackPage() {
  return (
    <main className="page">
      <h1>Feedback</h1>
    </main>
  );
}
