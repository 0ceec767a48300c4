"""Whether a question asks who or which named thing, and whether a sentence says
(services/actions/asked_names.py, issue #27, honest confidence)."""

from __future__ import annotations

from services.actions.asked_names import asked_name, names


def test_what_a_question_asks_for():
    assert asked_name("Who approves exceptions?") == "someone"
    assert asked_name("To whom must a breach be reported?") == "someone"
    assert asked_name("Who is liable for damages arising from the program?") == "someone"
    # The question gives the role and asks who holds it: a name.
    assert asked_name("Who is the licence steward of the MPL?") == "name"
    assert asked_name("Which cloud provider stores the backups?") == "name"
    assert asked_name("Which country's law governs the licence?") == "name"
    assert asked_name("What external auditor signed the report?") == "name"
    # A relative "who" asks nothing; "which" of a kind without proper names asks no name.
    assert asked_name("What can happen to an employee who breaches the policy?") is None
    assert asked_name("Which records must be kept for five years?") is None
    assert asked_name("How long are payroll records kept?") is None


def test_someone_is_a_name_or_a_word_for_people_the_question_does_not_use():
    approval = "Exceptions require written approval from the Data Protection Officer."
    assert names("someone", approval, "Who approves exceptions?")
    assert names("someone", "All employees must report incidents within a day.", "Who must report incidents?")
    notify = "Whom must the controller notify?"
    assert names("someone", "The controller shall notify the supervisory authority.", notify)
    assert not names("someone", "Incidents must be reported within a day.", "Who must report incidents?")
    # The question's own words are not the answer.
    assert not names("someone", "Employees must read the policy every year.", "Who trains employees?")


def test_a_name_is_an_acronym_an_unknown_capitalised_word_or_a_run_of_them():
    asked = "Which cloud provider does Northwind use for backups?"
    assert names("name", "Backups are stored with Amazon Web Services in two regions.", asked)
    assert names("name", "Northwind keeps its backups on AWS.", asked)
    assert names("name", "The agreement is governed by the laws of Virginia.", "Which state's law governs it?")
    # The question's own names, a defined term, a reference and a sentence's first word are not one.
    assert not names("name", "This standard covers every cloud service that holds Northwind data.", asked)
    assert not names("name", "Northwind's data stays in the cloud.", "Which cloud provider keeps Northwind's data?")
    governs = "Which country's law governs it?"
    assert not names("name", '"License" means the terms defined by Sections 1 through 9.', governs)
    assert not names("name", "Dear customer, our fund offers returns of 9% a year.", "Who is the fund manager?")
