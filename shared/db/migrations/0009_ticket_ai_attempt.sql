-- The AI's own answer to an escalated question and its graded confidence: the agent who takes the
-- ticket sees what the model would have said (and may start from it), while the customer never does.
ALTER TABLE tickets ADD COLUMN ai_answer text;
ALTER TABLE tickets ADD COLUMN ai_confidence real;
